/**
 * Parallel batches: one reply with N benchSleep calls of `sleepMs` each (all parallel-safe), timed at the
 * mock from the tool-call reply's last byte to the next LLM request. Wall ÷ sleepMs is 1.0 for perfect
 * overlap and N for none; the excess over 1.0 is the runtime's cost of running the batch.
 */
import type { AgentClient } from "../../src/client/index.ts";
import type { BenchLlm } from "./bench-llm.ts";
import { createBenchSession, runTurn } from "./driver.ts";
import { summarize, type Summary } from "./stats.ts";

export type ParallelOptions = { tools: number; sleepMs: number; runs: number };
export type ParallelResult = ParallelOptions & { wallMs: Summary; ratioP50: number; ratioP95: number };

export async function measureParallel(client: AgentClient, llm: BenchLlm, options: ParallelOptions): Promise<ParallelResult> {
  const session = await createBenchSession(client, ["benchSleep"], "parallel");
  llm.clear();
  for (let i = 0; i < options.runs; i++) await runTurn(session, `parallel ${options.tools} ${options.sleepMs}`);
  const walls = llm.gaps.filter((g) => g.tag === session.tag && g.calls === options.tools).map((g) => g.gapMs);
  const wallMs = summarize(walls);
  return { ...options, wallMs, ratioP50: wallMs.p50 / options.sleepMs, ratioP95: wallMs.p95 / options.sleepMs };
}
