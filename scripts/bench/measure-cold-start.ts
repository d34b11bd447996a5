/**
 * Cold start of a session: the first request to a new session (POST /v1/sessions, which instantiates its
 * Durable Object: constructor, schema, settings), then its first snapshot, against a snapshot of a warm
 * session and GET /v1/tools (no Durable Object: the floor of any request through wrangler dev) as baselines.
 * Sessions are created one at a time so each creation meets a fresh object.
 */
import type { AgentClient } from "../../src/client/index.ts";
import { createBenchSession, nowMs } from "./driver.ts";
import { summarize, type Summary } from "./stats.ts";

export type ColdStartResult = {
  sessions: number;
  createMs: Summary;
  firstSnapshotMs: Summary;
  warmSnapshotMs: Summary;
  listToolsMs: Summary;
};

export async function measureColdStart(client: AgentClient, sessions: number): Promise<ColdStartResult> {
  const create: number[] = [];
  const first: number[] = [];
  const warm: number[] = [];
  const tools: number[] = [];
  for (let i = 0; i < sessions; i++) {
    let t0 = nowMs();
    const session = await createBenchSession(client, ["benchEcho"], "cold");
    create.push(nowMs() - t0);
    t0 = nowMs();
    await session.handle.snapshot();
    first.push(nowMs() - t0);
    t0 = nowMs();
    await session.handle.snapshot();
    warm.push(nowMs() - t0);
    t0 = nowMs();
    await client.listTools();
    tools.push(nowMs() - t0);
  }
  return {
    sessions,
    createMs: summarize(create),
    firstSnapshotMs: summarize(first),
    warmSnapshotMs: summarize(warm),
    listToolsMs: summarize(tools),
  };
}
