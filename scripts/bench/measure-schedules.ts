/**
 * Schedule latency: from a schedule's due time to the runStart of the run it starts (both on the Worker's
 * clock: the create answer's nextRunAt, the event's ts), over one-shot schedules fired one after another
 * in one idle session. Each runs one benchEcho step, whose gap (the bench LLM's tap) in the same runs is
 * the plain tool step the ratios divide by.
 */
import type { AgentClient } from "../../src/client/index.ts";
import type { BenchLlm } from "./bench-llm.ts";
import { createBenchSession } from "./driver.ts";
import type { Headline } from "./report.ts";
import { summarize, type Summary } from "./stats.ts";

/** Time for the create answer to be back before the alarm; the figure is measured from the due time. */
const DUE_IN_MS = 100;

export type ScheduleLatencyResult = { fires: number; dueToRunStartMs: Summary; toolStepMs: Summary; ratioP50: number; ratioP95: number };

export async function measureScheduleLatency(client: AgentClient, llm: BenchLlm, fires: number): Promise<ScheduleLatencyResult> {
  const session = await createBenchSession(client, ["benchEcho"], "schedule");
  const latencies: number[] = [];
  let afterSeq = (await session.handle.snapshot()).lastEventSeq;
  for (let i = 0; i < fires; i++) {
    const { nextRunAt } = await session.handle.schedule({ message: "steps 1", delayMs: DUE_IN_MS });
    // Stops at the run's end; a schedule that never runs times the stream out, and the count check throws.
    for await (const event of session.handle.events({ lastEventId: afterSeq, signal: AbortSignal.timeout(30_000) })) {
      if (event.type === "eventsDropped") continue;
      afterSeq = event.seq;
      if (event.type === "runStart") latencies.push(event.ts - nextRunAt);
      if (event.type === "runEnd") break;
    }
    if (latencies.length !== i + 1) throw new Error(`schedule ${i + 1} did not run within 30 s`);
  }
  const due = summarize(latencies);
  const steps = summarize(llm.gaps.filter((g) => g.tag === session.tag).map((g) => g.gapMs));
  return { fires, dueToRunStartMs: due, toolStepMs: steps, ratioP50: due.p50 / steps.p50, ratioP95: due.p95 / steps.p95 };
}

export const scheduleHeadlines = (r: ScheduleLatencyResult): Headline[] => [
  { name: `schedule due → runStart p50 (${r.fires} fires)`, value: r.dueToRunStartMs.p50, unit: "ms" },
  { name: `schedule due → runStart p95 (${r.fires} fires)`, value: r.dueToRunStartMs.p95, unit: "ms" },
  { name: "schedule due → runStart ÷ tool step p50", value: r.ratioP50, unit: "×" },
  { name: "schedule due → runStart ÷ tool step p95", value: r.ratioP95, unit: "×" },
];
