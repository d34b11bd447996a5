/**
 * Step overhead: from the mock LLM's last byte of a tool-call reply to the arrival of the session's next
 * LLM request, with one cheap tool (benchEcho) in between, for sessions holding 10, 100 and 1,000
 * messages. Sessions are seeded through the API first; runs of the sizes are interleaved so machine noise
 * falls on all sizes alike, and the headline is the ratio of the largest size to the smallest.
 * With a floor Worker (floor-worker.ts), a request of ours from the middle of such a turn is also replayed,
 * for each size, through a Durable Object that does nothing else, in the same rounds: the same bytes and
 * replies with none of our code between them, so the step's growth can be split into what sending a
 * larger request costs here and what our code adds.
 */
import { randomUUID } from "node:crypto";
import type { AgentClient } from "../../src/client/index.ts";
import { floorRequestBody, type BenchLlm } from "./bench-llm.ts";
import { createBenchSession, runTurn, type BenchSession } from "./driver.ts";
import type { FloorWorker } from "./floor-worker.ts";
import { waitForIdleCpus } from "./settle.ts";
import { summarize, type Summary } from "./stats.ts";

export type StepOverheadOptions = { sizes: number[]; sessionsPerSize: number; stepsPerRun: number; floor?: FloorWorker };

type SizeResult = {
  history: number;
  meanHistoryAtSample: number;
  meanRequestBytes: number;
  /** To the next request's headers (the headline step) and to its last byte (what an LLM server waits for). */
  gapMs: Summary;
  bodyGapMs: Summary;
  /** The same size's request replayed by the floor Worker: its gaps and request size. */
  floor?: { meanRequestBytes: number; gapMs: Summary; bodyGapMs: Summary };
};

/** How much the step's p50 and the floor's grow from the smallest size to the largest, and the difference. */
export type Growth = { floorGrowthMs: number; stepGrowthMs: number; excessGrowthMs: number };

export type StepOverheadResult = {
  bySize: SizeResult[];
  /** p50 and p95 of the largest size ÷ the smallest. */
  ratioP50: number;
  ratioP95: number;
  /**
   * With a floor: its own p50 ratio (largest ÷ smallest size), how much its p50 and the step's grow from the
   * smallest size to the largest, and the step's growth beyond the floor's (what our code adds that grows
   * with history; a difference of differences, so it carries the noise of all four p50s); the same growths
   * measured to the request's last byte.
   */
  floor?: Growth & { ratioP50: number; toLastByte: Growth };
};

type Entry = { kind: "step" | "floor"; size: number };

export async function measureStepOverhead(client: AgentClient, llm: BenchLlm, options: StepOverheadOptions): Promise<StepOverheadResult> {
  const { sizes, sessionsPerSize, stepsPerRun, floor } = options;
  const sessions = new Map<number, BenchSession[]>();
  const captured = new Map<number, unknown>();
  for (const size of sizes) {
    const list: BenchSession[] = [];
    for (let i = 0; i < sessionsPerSize; i++) {
      const session = await createBenchSession(client, ["benchEcho"], `step${size}`);
      await runTurn(session, `seed ${size}`);
      list.push(session);
    }
    sessions.set(size, list);
    if (floor) captured.set(size, await captureMidTurnRequest(client, llm, size, stepsPerRun));
  }
  await waitForIdleCpus(); // what seeding left behind (settle.ts) is not the step's
  llm.clear();
  const floorTags = new Map<number, Set<string>>(sizes.map((size) => [size, new Set()]));
  const entries: Entry[] = sizes.flatMap((size): Entry[] => (floor ? [{ kind: "step", size }, { kind: "floor", size }] : [{ kind: "step", size }]));
  for (let round = 0; round < sessionsPerSize; round++) {
    // The order rotates each round, so no size (and neither the step nor its floor) always runs first.
    for (let i = 0; i < entries.length; i++) {
      const { kind, size } = entries[(round + i) % entries.length]!;
      if (kind === "step") {
        await runTurn(sessions.get(size)![round]!, `steps ${stepsPerRun}`);
        continue;
      }
      // A tag per series: its first sending has no reply before it, so it yields stepsPerRun gaps.
      const tag = `floor${size}-${randomUUID().slice(0, 8)}`;
      floorTags.get(size)!.add(tag);
      await floor!.replay(floorRequestBody(captured.get(size), tag), stepsPerRun + 1);
    }
  }
  const bySize = sizes.map((size): SizeResult => {
    const tags = new Set(sessions.get(size)!.map((s) => s.tag));
    const gaps = llm.gaps.filter((g) => tags.has(g.tag) && g.command.startsWith("steps"));
    const mean = (list: typeof gaps, of: (g: (typeof gaps)[number]) => number) => list.reduce((sum, g) => sum + of(g), 0) / Math.max(1, list.length);
    const result: SizeResult = {
      history: size,
      meanHistoryAtSample: mean(gaps, (g) => g.history),
      meanRequestBytes: Math.round(mean(gaps, (g) => g.requestBytes)),
      gapMs: summarize(gaps.map((g) => g.gapMs)),
      bodyGapMs: summarize(gaps.map((g) => g.bodyGapMs)),
    };
    if (!floor) return result;
    const floorGaps = llm.gaps.filter((g) => floorTags.get(size)!.has(g.tag));
    return {
      ...result,
      floor: { meanRequestBytes: Math.round(mean(floorGaps, (g) => g.requestBytes)), gapMs: summarize(floorGaps.map((g) => g.gapMs)), bodyGapMs: summarize(floorGaps.map((g) => g.bodyGapMs)) },
    };
  });
  const first = bySize[0]!;
  const last = bySize.at(-1)!;
  const result: StepOverheadResult = { bySize, ratioP50: last.gapMs.p50 / first.gapMs.p50, ratioP95: last.gapMs.p95 / first.gapMs.p95 };
  if (first.floor && last.floor) {
    const growth = (of: (s: { gapMs: Summary; bodyGapMs: Summary }) => Summary): Growth => {
      const floorGrowthMs = of(last.floor!).p50 - of(first.floor!).p50;
      const stepGrowthMs = of(last).p50 - of(first).p50;
      return { floorGrowthMs, stepGrowthMs, excessGrowthMs: stepGrowthMs - floorGrowthMs };
    };
    result.floor = { ratioP50: last.floor.gapMs.p50 / first.floor.gapMs.p50, ...growth((s) => s.gapMs), toLastByte: growth((s) => s.bodyGapMs) };
  }
  return result;
}

/**
 * A request our Worker sends halfway through a measured turn at this size: the last one of a `steps K/2`
 * turn (it ends with a tool result, as every measured step's request does) of a session seeded like the
 * measured ones but not measured itself.
 */
async function captureMidTurnRequest(client: AgentClient, llm: BenchLlm, size: number, stepsPerRun: number): Promise<unknown> {
  const probe = await createBenchSession(client, ["benchEcho"], `probe${size}`);
  llm.watch([probe.tag]);
  await runTurn(probe, `seed ${size}`);
  await runTurn(probe, `steps ${Math.ceil(stepsPerRun / 2)}`);
  const body = llm.lastRequestBody(probe.tag);
  if (body === undefined) throw new Error(`step floor: no request of the ${size}-message probe session was captured`);
  return body;
}
