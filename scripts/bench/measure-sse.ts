/**
 * SSE latency, through the client SDK's reconnecting event stream: benchStream emits partial results spaced
 * apart, and each toolExecUpdate's receipt time here minus its `ts` (the Worker's Date.now() when it was
 * recorded; same machine clock, whole milliseconds) is one sample.
 */
import type { AgentClient } from "../../src/client/index.ts";
import { createBenchSession, epochMs, runTurn } from "./driver.ts";
import { summarize, type Headline, type Summary } from "./stats.ts";

export type SseLatencyResult = { events: number; spacingMs: number; latencyMs: Summary; reconnects: number };

export async function measureSseLatency(client: AgentClient, options: { events: number; spacingMs: number }): Promise<SseLatencyResult> {
  const session = await createBenchSession(client, ["benchStream"], "sse-latency");
  const { lastEventSeq } = await session.handle.snapshot();
  const samples: number[] = [];
  let reconnects = 0;
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const onConnectionChange = (state: string) => (state === "open" ? opened() : state === "reconnecting" && reconnects++);
  const done = (async () => {
    for await (const event of session.handle.events({ lastEventId: lastEventSeq, onConnectionChange })) {
      if (event.type === "toolExecUpdate") samples.push(epochMs() - event.ts);
      if (event.type === "runEnd") return;
    }
  })();
  await open;
  await runTurn(session, `stream ${options.events} ${options.spacingMs}`);
  await done;
  return { ...options, latencyMs: summarize(samples), reconnects };
}

export const sseHeadlines = (r: SseLatencyResult): Headline[] => [
  { name: "SSE latency p50", value: r.latencyMs.p50, unit: "ms", target: { op: "<=", value: 5 } },
  { name: "SSE latency p95", value: r.latencyMs.p95, unit: "ms" },
];
