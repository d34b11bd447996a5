/**
 * Step overhead: from the mock LLM's last byte of a tool-call reply to the arrival of the session's next
 * LLM request, with one cheap tool (benchEcho) in between, for sessions holding 10, 100 and 1,000
 * messages. Sessions are seeded through the API first; runs of the sizes are interleaved so machine noise
 * falls on all sizes alike, and the headline is the ratio of the largest size to the smallest.
 */
import type { AgentClient } from "../../src/client/index.ts";
import type { BenchLlm } from "./bench-llm.ts";
import { createBenchSession, runTurn, type BenchSession } from "./driver.ts";
import { waitForIdleCpus } from "./settle.ts";
import { summarize, type Summary } from "./stats.ts";

export type StepOverheadOptions = { sizes: number[]; sessionsPerSize: number; stepsPerRun: number };

type SizeResult = { history: number; meanHistoryAtSample: number; meanRequestBytes: number; gapMs: Summary };

export type StepOverheadResult = {
  bySize: SizeResult[];
  /** p50 and p95 of the largest size ÷ the smallest. */
  ratioP50: number;
  ratioP95: number;
};

export async function measureStepOverhead(client: AgentClient, llm: BenchLlm, options: StepOverheadOptions): Promise<StepOverheadResult> {
  const { sizes, sessionsPerSize, stepsPerRun } = options;
  const sessions = new Map<number, BenchSession[]>();
  for (const size of sizes) {
    const list: BenchSession[] = [];
    for (let i = 0; i < sessionsPerSize; i++) {
      const session = await createBenchSession(client, undefined, `step${size}`);
      await runTurn(session, `seed ${size}`);
      list.push(session);
    }
    sessions.set(size, list);
  }
  await waitForIdleCpus(); // what seeding left behind (settle.ts) is not the step's
  llm.clear();
  for (let round = 0; round < sessionsPerSize; round++) {
    // The order rotates each round, so no size always runs first.
    for (let i = 0; i < sizes.length; i++) {
      const size = sizes[(round + i) % sizes.length]!;
      await runTurn(sessions.get(size)![round]!, `steps ${stepsPerRun}`);
    }
  }
  const bySize = sizes.map((size): SizeResult => {
    const tags = new Set(sessions.get(size)!.map((s) => s.tag));
    const gaps = llm.gaps.filter((g) => tags.has(g.tag) && g.command.startsWith("steps"));
    const mean = (of: (g: (typeof gaps)[number]) => number) => gaps.reduce((sum, g) => sum + of(g), 0) / Math.max(1, gaps.length);
    return {
      history: size,
      meanHistoryAtSample: mean((g) => g.history),
      meanRequestBytes: Math.round(mean((g) => g.requestBytes)),
      gapMs: summarize(gaps.map((g) => g.gapMs)),
    };
  });
  const first = bySize[0]!;
  const last = bySize.at(-1)!;
  return { bySize, ratioP50: last.gapMs.p50 / first.gapMs.p50, ratioP95: last.gapMs.p95 / first.gapMs.p95 };
}
