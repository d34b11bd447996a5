/**
 * The step: from the bench LLM's last byte of a tool-call reply to the last byte of the session's next LLM
 * request, with one benchEcho call in between (bench-llm.ts records it). One cell per runtime and history
 * size, each with its own sessions seeded first; after a wait for idle CPUs one `steps K` turn per session,
 * cells in an order that rotates each round so machine noise falls on all alike. Used for this Worker's
 * step in each mode (run.ts) and for the peers' (bench/peers/measure-peers.ts).
 */
import type { AgentClient } from "../../src/client/index.ts";
import type { BenchLlm } from "./bench-llm.ts";
import { createBenchSession, runTurn } from "./driver.ts";
import { summarize, waitForIdleCpus, type Headline, type Summary } from "./stats.ts";

export type StepPlan = { sizes: number[]; sessionsPerCell: number; stepsPerRun: number };
/** A session of some runtime; `tag` is what its system prompt carries (`bench:<tag>`). */
export type StepSession = { tag: string; turn(command: string): Promise<void> };
export type StepCell = { size: number; seed(size: number): Promise<StepSession> };
export type StepAtSize = { history: number; meanRequestBytes: number; gapMs: Summary };
export type StepResult = { bySize: StepAtSize[]; ratioP50: number };

/** Measures every cell interleaved; returns each cell's figures in the order given. */
export async function measureStepCells(cells: StepCell[], llm: BenchLlm, plan: Omit<StepPlan, "sizes">): Promise<StepAtSize[]> {
  const sessions: StepSession[][] = cells.map(() => []);
  for (let i = 0; i < plan.sessionsPerCell; i++) for (const [c, cell] of cells.entries()) sessions[c]!.push(await cell.seed(cell.size));
  await waitForIdleCpus(); // what seeding left behind is not the step's
  llm.clear();
  for (let round = 0; round < plan.sessionsPerCell; round++)
    for (let i = 0; i < cells.length; i++) await sessions[(round + i) % cells.length]![round]!.turn(`steps ${plan.stepsPerRun}`);
  return cells.map((cell, c) => {
    const tags = new Set(sessions[c]!.map((s) => s.tag));
    const gaps = llm.gaps.filter((g) => tags.has(g.tag) && g.command.startsWith("steps"));
    if (gaps.length === 0) throw new Error(`no steps were recorded at ${cell.size} messages`);
    return {
      history: cell.size,
      meanRequestBytes: Math.round(gaps.reduce((s, g) => s + g.requestBytes, 0) / gaps.length),
      gapMs: summarize(gaps.map((g) => g.gapMs)),
    };
  });
}

/** This Worker's sessions for the step: created as a user's would be (every bundled tool offered), seeded through the API. */
export const ourStepCell = (client: AgentClient, size: number): StepCell => ({
  size,
  async seed() {
    const session = await createBenchSession(client, undefined, `step${size}`);
    await runTurn(session, `seed ${size}`);
    return { tag: session.tag, turn: async (command) => void (await runTurn(session, command)) };
  },
});

export async function measureStep(client: AgentClient, llm: BenchLlm, plan: StepPlan): Promise<StepResult> {
  const bySize = await measureStepCells(
    plan.sizes.map((size) => ourStepCell(client, size)),
    llm,
    plan,
  );
  return { bySize, ratioP50: bySize.at(-1)!.gapMs.p50 / bySize[0]!.gapMs.p50 };
}

/** With targets (the streaming step): p50 at the smallest size at most 2 ms, and at most 1.3× from smallest to largest. */
export function stepHeadlines(r: StepResult, label: string, withTargets = false): Headline[] {
  const [small, large] = [r.bySize[0]!, r.bySize.at(-1)!];
  const target = (value: number) => (withTargets ? { target: { op: "<=" as const, value } } : {});
  const body = { name: `LLM request body at ${large.history} msgs`, value: Math.round(large.meanRequestBytes / 1024), unit: "KiB" };
  return [
    ...r.bySize.flatMap((s): Headline[] => [
      { name: `step${label} p50, ${s.history} msgs`, value: s.gapMs.p50, unit: "ms", ...(s === small ? target(2) : {}) },
      { name: `step${label} p95, ${s.history} msgs`, value: s.gapMs.p95, unit: "ms" },
    ]),
    { name: `step ratio${label} p50, ${large.history} ÷ ${small.history}`, value: r.ratioP50, unit: "×", ...target(1.3) },
    ...(withTargets ? [body] : []),
  ];
}
