/**
 * Load: many sessions at once, each running several turns back to back (a turn = one benchEcho call and a
 * text answer, so two LLM requests). Turn time is send → final message received. Reports turns per second
 * over the whole window, the error count (any refused request, failed turn or missing response) and p95.
 */
import type { AgentClient } from "../../src/client/index.ts";
import { createBenchSession, nowMs, runTurn, type BenchSession } from "./driver.ts";
import { summarize, type Summary } from "./stats.ts";

export type LoadOptions = { sessions: number; turnsPerSession: number };
export type LoadResult = LoadOptions & {
  turns: number;
  errors: number;
  errorSamples: string[];
  wallMs: number;
  turnsPerSecond: number;
  turnMs: Summary;
  createSessionMs: Summary;
};

export async function measureLoad(client: AgentClient, options: LoadOptions): Promise<LoadResult> {
  const errors: string[] = [];
  const createTimes: number[] = [];
  const created = await Promise.all(
    Array.from({ length: options.sessions }, async (): Promise<BenchSession | undefined> => {
      const started = nowMs();
      try {
        const session = await createBenchSession(client, ["benchEcho"], "load");
        createTimes.push(nowMs() - started);
        return session;
      } catch (err) {
        errors.push(`create: ${String(err)}`);
        return undefined;
      }
    }),
  );
  const turnTimes: number[] = [];
  const started = nowMs();
  await Promise.all(
    created.map(async (session) => {
      if (!session) return;
      for (let turn = 0; turn < options.turnsPerSession; turn++) {
        const t0 = nowMs();
        try {
          await runTurn(session, "turn");
          turnTimes.push(nowMs() - t0);
        } catch (err) {
          errors.push(`turn: ${String(err)}`);
        }
      }
    }),
  );
  const wallMs = nowMs() - started;
  return {
    ...options,
    turns: turnTimes.length,
    // Failed creations, plus every turn that did not complete (failed, or never run for lack of a session).
    errors: errors.filter((e) => e.startsWith("create")).length + options.sessions * options.turnsPerSession - turnTimes.length,
    errorSamples: errors.slice(0, 5),
    wallMs,
    turnsPerSecond: (turnTimes.length / wallMs) * 1000,
    turnMs: summarize(turnTimes),
    createSessionMs: summarize(createTimes),
  };
}
