/**
 * The headline figures of a bench run, in table order, with the targets attached where it sets one
 * (report only). Built by run.ts from the measurement results; the same list goes to stdout and to JSON.
 */
import type { BundleSize } from "./measure-bundle.ts";
import type { ColdStartResult } from "./measure-cold-start.ts";
import type { FanoutResult } from "./measure-fanout.ts";
import type { LoadResult } from "./measure-load.ts";
import type { ParallelResult } from "./measure-parallel.ts";
import type { SseLatencyResult, SseThroughputResult } from "./measure-sse.ts";
import type { StepOverheadResult } from "./measure-step-overhead.ts";
import type { StorageResult } from "./measure-storage.ts";
import type { WakeResult } from "./measure-wake.ts";
import { peerHeadlines, type PeerComparisonResult } from "./measure-peers.ts";
import type { Headline } from "./report.ts";

export type BenchResults = {
  stepOverhead: StepOverheadResult;
  stepOverheadNonStreaming?: StepOverheadResult;
  parallel: ParallelResult;
  sseLatency: SseLatencyResult;
  sseThroughput: SseThroughputResult;
  load: LoadResult;
  fanout?: FanoutResult;
  wake?: WakeResult;
  bundle: BundleSize[];
  storage: StorageResult;
  coldStart: ColdStartResult;
  /** The step against other runtimes (Agents SDK, pi-agent-core) on the same LLM and history. */
  peers?: PeerComparisonResult;
};

const STEP_P50_TARGET_MS = 2;
const STEP_RATIO_TARGET = 1.3;
const PARALLEL_RATIO_TARGET = 1.2;
const SSE_P50_TARGET_MS = 5;
const BUNDLE_GZIP_TARGET_KIB = 200;
const STEP_STREAMING_TARGET_MS = 1.5;
const STEP_NON_STREAMING_TARGET_MS = 1.2;
const STEP_RATIO_GOAL = 1.1;
const WAKE_RATIO_TARGET = 1.5;
/** "A heap that does not grow with history": within this of the 10-message session's (GC noise). */
const HEAP_GROWTH_TARGET_KIB = 256;

function fanoutHeadlines(f: FanoutResult): Headline[] {
  const name = `fan-out ${f.subscribers} subs / ${f.sessions} sessions`;
  return [
    { name: `${name}: latency p50`, value: f.latencyMs.p50, unit: "ms" },
    { name: `${name}: latency p95`, value: f.latencyMs.p95, unit: "ms" },
    { name: `${name}: lost + duplicated events`, value: f.lost + f.duplicated, unit: "", target: { op: "==", value: 0 } },
    { name: `${name}: workerd memory per subscriber`, value: f.rssPerSubscriberKiB, unit: "KiB" },
  ];
}

function wakeHeadlines(w: WakeResult): Headline[] {
  const small = w.bySize[0]!;
  const large = w.bySize.at(-1)!;
  return [
    ...w.bySize.map((s): Headline => ({ name: `wake (first request after restart) p50, ${s.history} msgs`, value: s.wakeMs.p50, unit: "ms" })),
    { name: `wake ratio p50, ${large.history} ÷ ${small.history}`, value: w.wakeRatioP50, unit: "×", target: { op: "<=", value: WAKE_RATIO_TARGET } },
    ...w.bySize.map((s): Headline => ({ name: `heap kept by a woken session, ${s.history} msgs`, value: s.heapKiB.p50, unit: "KiB" })),
    { name: `heap growth, ${large.history} vs ${small.history} msgs`, value: w.heapGrowthKiB, unit: "KiB", target: { op: "<=", value: HEAP_GROWTH_TARGET_KIB } },
    ...w.bySize.map((s): Headline => ({ name: `snapshot (page load) bytes, ${s.history} msgs`, value: Math.round(s.snapshotBytes / 1024), unit: "KiB" })),
  ];
}

function stepHeadlines(result: StepOverheadResult, label: string, withTargets: boolean): Headline[] {
  const small = result.bySize[0]!;
  const large = result.bySize.at(-1)!;
  return [
    ...result.bySize.map((s): Headline => ({
      name: `step overhead${label} p50, ${s.history} msgs`,
      value: s.gapMs.p50,
      unit: "ms",
      ...(withTargets && s === small ? { target: { op: "<=" as const, value: STEP_P50_TARGET_MS } } : {}),
    })),
    ...result.bySize.map((s): Headline => ({ name: `step overhead${label} p95, ${s.history} msgs`, value: s.gapMs.p95, unit: "ms" })),
    {
      name: `step ratio${label} p50, ${large.history} ÷ ${small.history}`,
      value: result.ratioP50,
      unit: "×",
      ...(withTargets ? { target: { op: "<=" as const, value: STEP_RATIO_TARGET } } : {}),
    },
    { name: `step ratio${label} p95, ${large.history} ÷ ${small.history}`, value: result.ratioP95, unit: "×" },
    ...floorHeadlines(result, label),
    ...(withTargets ? [{ name: `LLM request body at ${large.history} msgs`, value: Math.round(large.meanRequestBytes / 1024), unit: "KiB" }] : []),
  ];
}

/** The step's floor (the same requests replayed by a Durable Object doing nothing else), and the step's growth beside the floor's. */
function floorHeadlines(result: StepOverheadResult, label: string): Headline[] {
  if (!result.floor) return [];
  const small = result.bySize[0]!;
  const large = result.bySize.at(-1)!;
  return [
    ...result.bySize.flatMap((s): Headline[] => (s.floor ? [{ name: `step floor${label} p50, ${s.history} msgs`, value: s.floor.gapMs.p50, unit: "ms" }] : [])),
    { name: `step floor ratio${label} p50, ${large.history} ÷ ${small.history}`, value: result.floor.ratioP50, unit: "×" },
    { name: `step growth${label} p50, ${small.history} → ${large.history} msgs`, value: result.floor.stepGrowthMs, unit: "ms" },
    { name: `step floor growth${label} p50, ${small.history} → ${large.history} msgs`, value: result.floor.floorGrowthMs, unit: "ms" },
    { name: `step growth${label} beyond the floor's, ${small.history} → ${large.history} msgs`, value: result.floor.excessGrowthMs, unit: "ms" },
    ...result.bySize.flatMap((s): Headline[] => [
      { name: `step to the request's last byte${label} p50, ${s.history} msgs`, value: s.bodyGapMs.p50, unit: "ms" },
      ...(s.floor ? [{ name: `step floor to the request's last byte${label} p50, ${s.history} msgs`, value: s.floor.bodyGapMs.p50, unit: "ms" }] : []),
    ]),
    { name: `step growth${label} beyond the floor's to the request's last byte, ${small.history} → ${large.history} msgs`, value: result.floor.toLastByte.excessGrowthMs, unit: "ms" },
  ];
}

/** The step goals of the scale issue, checked on the same figures (streaming, non-streaming, ratio). */
function stepGoalHeadlines(r: BenchResults): Headline[] {
  const out: Headline[] = [{ name: "step goal: streaming p50, 10 msgs", value: r.stepOverhead.bySize[0]!.gapMs.p50, unit: "ms", target: { op: "<=", value: STEP_STREAMING_TARGET_MS } }];
  if (r.stepOverheadNonStreaming) {
    out.push({ name: "step goal: non-streaming p50, 10 msgs", value: r.stepOverheadNonStreaming.bySize[0]!.gapMs.p50, unit: "ms", target: { op: "<=", value: STEP_NON_STREAMING_TARGET_MS } });
  }
  out.push({ name: "step goal: ratio p50, 1000 ÷ 10", value: r.stepOverhead.ratioP50, unit: "×", target: { op: "<=", value: STEP_RATIO_GOAL } });
  return out;
}

export function buildHeadlines(r: BenchResults): Headline[] {
  const { load, parallel } = r;
  const loadName = `load ${load.sessions}×${load.turnsPerSession}`;
  const parallelName = `parallel ${parallel.tools}×${parallel.sleepMs} ms: wall ÷ ${parallel.sleepMs} ms`;
  const bundleName = (b: BundleSize, what: string) => `bundle ${what} (${b.minify ? "--minify" : "as configured"})`;
  return [
    ...stepHeadlines(r.stepOverhead, "", true),
    ...(r.stepOverheadNonStreaming ? stepHeadlines(r.stepOverheadNonStreaming, " (non-streaming)", false) : []),
    ...stepGoalHeadlines(r),
    ...(r.peers ? peerHeadlines(r.peers) : []),
    { name: `${parallelName}, p50`, value: parallel.ratioP50, unit: "×", target: { op: "<=", value: PARALLEL_RATIO_TARGET } },
    { name: `${parallelName}, p95`, value: parallel.ratioP95, unit: "×" },
    { name: "SSE latency p50", value: r.sseLatency.latencyMs.p50, unit: "ms", target: { op: "<=", value: SSE_P50_TARGET_MS } },
    { name: "SSE latency p95", value: r.sseLatency.latencyMs.p95, unit: "ms" },
    { name: `SSE ${r.sseThroughput.events} partials → ${r.sseThroughput.subscribers} subs, slowest sub`, value: r.sseThroughput.minEventsPerSecond, unit: "events/s" },
    { name: `SSE ${r.sseThroughput.events} partials → ${r.sseThroughput.subscribers} subs, all delivered`, value: r.sseThroughput.totalEventsPerSecond, unit: "events/s" },
    { name: `${loadName}: turns/s`, value: load.turnsPerSecond, unit: "turns/s" },
    { name: `${loadName}: errors`, value: load.errors, unit: "", target: { op: "==", value: 0 } },
    { name: `${loadName}: turn p50`, value: load.turnMs.p50, unit: "ms" },
    { name: `${loadName}: turn p95`, value: load.turnMs.p95, unit: "ms" },
    ...r.bundle.map((b): Headline => ({
      name: bundleName(b, "gzip"),
      value: b.wranglerGzipKiB ?? b.gzipKiB,
      unit: "KiB",
      ...(b.minify ? {} : { target: { op: "<=" as const, value: BUNDLE_GZIP_TARGET_KIB } }),
    })),
    ...r.bundle.map((b): Headline => ({ name: bundleName(b, "raw"), value: b.wranglerTotalKiB ?? b.rawKiB, unit: "KiB" })),
    ...(r.fanout ? fanoutHeadlines(r.fanout) : []),
    ...(r.wake ? wakeHeadlines(r.wake) : []),
    { name: "storage per step: rows kept", value: r.storage.perStep.rows, unit: "rows" },
    { name: "storage per step: bytes kept", value: r.storage.perStep.bytes, unit: "B" },
    { name: "cold start: create session p50", value: r.coldStart.createMs.p50, unit: "ms" },
    { name: "cold start: first snapshot p50", value: r.coldStart.firstSnapshotMs.p50, unit: "ms" },
    { name: "warm snapshot p50", value: r.coldStart.warmSnapshotMs.p50, unit: "ms" },
    { name: "GET /v1/tools p50 (no Durable Object)", value: r.coldStart.listToolsMs.p50, unit: "ms" },
  ];
}
