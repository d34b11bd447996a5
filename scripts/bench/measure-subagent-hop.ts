/**
 * Sub-agent hop: each `hop` turn makes one plain benchEcho step, then one call of the bundled researcher
 * whose child answers at once. The hop's overhead is its gap (the call's reply leaving → the parent's next
 * LLM request) minus the child's own run (runStart → runEnd, from the relayed events), reported as a
 * ratio to the plain step's gap in the same turns. Called by run.ts.
 */
import type { AgentClient } from "../../src/client/index.ts";
import type { BenchLlm } from "./bench-llm.ts";
import { createBenchSession, runTurn } from "./driver.ts";
import type { Headline } from "./report.ts";
import { summarize, type Summary } from "./stats.ts";

export type SubAgentHopResult = {
  plainStepMs: Summary;
  hopOverheadMs: Summary;
  childRunMs: Summary;
  ratioP50: number;
  headlines: Headline[];
};

export async function measureSubAgentHop(client: AgentClient, llm: BenchLlm, turns: number): Promise<SubAgentHopResult> {
  const session = await createBenchSession(client, ["benchEcho", "researcher"], "hop");
  await runTurn(session, "hop"); // warm-up: the child's code paths
  llm.clear();
  const childRuns: number[] = [];
  for (let i = 0; i < turns; i++) {
    const { lastEventSeq } = await session.handle.snapshot();
    await runTurn(session, "hop");
    const at: Record<string, number> = {};
    for await (const event of session.handle.events({ lastEventId: lastEventSeq })) {
      const child = (event as { partialResult?: { subAgent?: { event?: { type: string; ts: number } } } }).partialResult?.subAgent?.event;
      if (child) at[child.type] ??= child.ts;
      if (event.type === "runEnd") break;
    }
    childRuns.push(at.runEnd! - at.runStart!);
  }
  const gaps = llm.gaps.filter((g) => g.tag === session.tag && g.command === "hop").map((g) => g.gapMs);
  const plainStepMs = summarize(gaps.filter((_, i) => i % 2 === 0));
  const hopOverheadMs = summarize(gaps.filter((_, i) => i % 2 === 1).map((gap, i) => gap - childRuns[i]!));
  const ratioP50 = hopOverheadMs.p50 / plainStepMs.p50;
  const headlines: Headline[] = [
    { name: "sub-agent hop overhead p50 (child's run excluded)", value: hopOverheadMs.p50, unit: "ms" },
    { name: "sub-agent hop overhead p95 (child's run excluded)", value: hopOverheadMs.p95, unit: "ms" },
    { name: "sub-agent hop ÷ plain tool step, p50", value: ratioP50, unit: "×" },
  ];
  return { plainStepMs, hopOverheadMs, childRunMs: summarize(childRuns), ratioP50, headlines };
}
