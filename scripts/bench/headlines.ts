/**
 * The headline figures of a bench run, in table order, with the project's targets attached where it sets
 * one (report only). Built by run.ts from the measurement results; the same list goes to stdout and JSON.
 */
import type { ColdStartResult } from "./measure-cold-start.ts";
import type { FanoutResult } from "./measure-fanout.ts";
import type { LoadResult } from "./measure-load.ts";
import type { SseLatencyResult, SseThroughputResult } from "./measure-sse.ts";
import { scheduleHeadlines, type ScheduleLatencyResult } from "./measure-schedules.ts";
import type { StepOverheadResult } from "./measure-step-overhead.ts";
import type { WakeResult } from "./measure-wake.ts";
import type { StartupResult } from "./measure-startup.ts";
import type { PeersRun } from "./peers-package.ts";
import type { Headline } from "./report.ts";

export type BenchResults = {
  stepOverhead: StepOverheadResult;
  stepOverheadNonStreaming?: StepOverheadResult;
  /** The streaming step again with OTEL_EXPORTER_OTLP_ENDPOINT set (a local receiver); spans it received. */
  stepOverheadTracing?: StepOverheadResult & { spansExported: number };
  /** The step with one trivial input and one trivial output guardrail bundled (scripts/bench/guardrails). */
  stepOverheadGuarded?: StepOverheadResult;
  /** What holding a streamed delta for the output guardrail adds, in process (measure-held-deltas.ts). */
  heldDeltas?: { addedUsPerDelta: number };
  sseLatency: SseLatencyResult;
  sseThroughput: SseThroughputResult;
  schedules?: ScheduleLatencyResult;
  load: LoadResult;
  fanout?: FanoutResult;
  wake?: WakeResult;
  coldStart: ColdStartResult;
  startup: StartupResult;
  /** With `--peers`: the step against other runtimes (Agents SDK, pi-agent-core) on the same LLM and history. */
  peers?: PeersRun;
};

const STEP_P50_TARGET_MS = 2;
const STEP_RATIO_TARGET = 1.3;
const SSE_P50_TARGET_MS = 5;
const BUNDLE_GZIP_TARGET_KIB = 200;
/** Start-up CPU at most this share of the Agents SDK Worker's. */
const STARTUP_SHARE_TARGET = 0.25;
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
    ...w.bySize.map(
      (s): Headline => ({ name: `wake (first request after restart) p50, ${s.history} msgs`, value: s.wakeMs.p50, unit: "ms" }),
    ),
    {
      name: `wake ratio p50, ${large.history} ÷ ${small.history}`,
      value: w.wakeRatioP50,
      unit: "×",
      target: { op: "<=", value: WAKE_RATIO_TARGET },
    },
    ...w.bySize.map((s): Headline => ({ name: `heap kept by a woken session, ${s.history} msgs`, value: s.heapKiB.p50, unit: "KiB" })),
    {
      name: `heap growth, ${large.history} vs ${small.history} msgs`,
      value: w.heapGrowthKiB,
      unit: "KiB",
      target: { op: "<=", value: HEAP_GROWTH_TARGET_KIB },
    },
    ...w.bySize.map(
      (s): Headline => ({ name: `snapshot (page load) bytes, ${s.history} msgs`, value: Math.round(s.snapshotBytes / 1024), unit: "KiB" }),
    ),
  ];
}

function stepHeadlines(result: StepOverheadResult, label: string, withTargets: boolean): Headline[] {
  const small = result.bySize[0]!;
  const large = result.bySize.at(-1)!;
  return [
    ...result.bySize.map(
      (s): Headline => ({
        name: `step overhead${label} p50, ${s.history} msgs`,
        value: s.gapMs.p50,
        unit: "ms",
        ...(withTargets && s === small ? { target: { op: "<=" as const, value: STEP_P50_TARGET_MS } } : {}),
      }),
    ),
    ...result.bySize.map((s): Headline => ({ name: `step overhead${label} p95, ${s.history} msgs`, value: s.gapMs.p95, unit: "ms" })),
    {
      name: `step ratio${label} p50, ${large.history} ÷ ${small.history}`,
      value: result.ratioP50,
      unit: "×",
      ...(withTargets ? { target: { op: "<=" as const, value: STEP_RATIO_TARGET } } : {}),
    },
    { name: `step ratio${label} p95, ${large.history} ÷ ${small.history}`, value: result.ratioP95, unit: "×" },
    ...(withTargets
      ? [{ name: `LLM request body at ${large.history} msgs`, value: Math.round(large.meanRequestBytes / 1024), unit: "KiB" }]
      : []),
  ];
}

/** The step with tracing on beside the same step with it off (the first streaming measurement). */
function tracingHeadlines(off: StepOverheadResult, on: StepOverheadResult & { spansExported: number }): Headline[] {
  return [
    ...on.bySize.map((s): Headline => ({ name: `step overhead (tracing on) p50, ${s.history} msgs`, value: s.gapMs.p50, unit: "ms" })),
    ...on.bySize.map(
      (s, i): Headline => ({
        name: `step p50 tracing on ÷ off, ${s.history} msgs`,
        value: s.gapMs.p50 / off.bySize[i]!.gapMs.p50,
        unit: "×",
      }),
    ),
    { name: "spans exported during the tracing-on step", value: on.spansExported, unit: "spans" },
  ];
}

/** Start-up CPU and bundle of this Worker and, with `--peers`, of the Agents SDK Worker, from the same run. */
export function startupHeadlines(ours: StartupResult, agentsSdk?: StartupResult): Headline[] {
  const of = (who: string, r: StartupResult, targets: boolean): Headline[] => [
    { name: `start-up CPU (wrangler check startup), ${who}`, value: r.activeMs.p50, unit: "ms" },
    {
      name: `bundle gzip, ${who}`,
      value: r.bundleGzipKiB,
      unit: "KiB",
      ...(targets ? { target: { op: "<=" as const, value: BUNDLE_GZIP_TARGET_KIB } } : {}),
    },
    { name: `bundle raw, ${who}`, value: r.bundleKiB, unit: "KiB" },
  ];
  if (!agentsSdk) return of("this Worker", ours, true);
  return [
    ...of("this Worker", ours, true),
    ...of("Agents SDK", agentsSdk, false),
    {
      name: "start-up CPU: ours ÷ Agents SDK",
      value: ours.activeMs.p50 / agentsSdk.activeMs.p50,
      unit: "×",
      target: { op: "<=", value: STARTUP_SHARE_TARGET },
    },
    { name: "bundle gzip: ours ÷ Agents SDK", value: ours.bundleGzipKiB / agentsSdk.bundleGzipKiB, unit: "×" },
  ];
}

export function buildHeadlines(r: BenchResults): Headline[] {
  const { load } = r;
  const loadName = `load ${load.sessions}×${load.turnsPerSession}`;
  return [
    ...stepHeadlines(r.stepOverhead, "", true),
    ...(r.stepOverheadNonStreaming ? stepHeadlines(r.stepOverheadNonStreaming, " (non-streaming)", false) : []),
    ...(r.stepOverheadTracing ? tracingHeadlines(r.stepOverhead, r.stepOverheadTracing) : []),
    ...(r.stepOverheadGuarded
      ? r.stepOverheadGuarded.bySize.map(
          (s, i): Headline => ({
            name: `step p50 guardrails on ÷ off, ${s.history} msgs`,
            value: s.gapMs.p50 / r.stepOverhead.bySize[i]!.gapMs.p50,
            unit: "×",
          }),
        )
      : []),
    ...(r.heldDeltas
      ? [{ name: "added per streamed delta held for an output guardrail", value: r.heldDeltas.addedUsPerDelta, unit: "µs" }]
      : []),
    ...(r.peers?.headlines ?? []),
    ...startupHeadlines(r.startup, r.peers?.agentsSdkStartup),
    { name: "SSE latency p50", value: r.sseLatency.latencyMs.p50, unit: "ms", target: { op: "<=", value: SSE_P50_TARGET_MS } },
    { name: "SSE latency p95", value: r.sseLatency.latencyMs.p95, unit: "ms" },
    {
      name: `SSE ${r.sseThroughput.events} partials → ${r.sseThroughput.subscribers} subs, slowest sub`,
      value: r.sseThroughput.minEventsPerSecond,
      unit: "events/s",
    },
    {
      name: `SSE ${r.sseThroughput.events} partials → ${r.sseThroughput.subscribers} subs, all delivered`,
      value: r.sseThroughput.totalEventsPerSecond,
      unit: "events/s",
    },
    ...(r.schedules ? scheduleHeadlines(r.schedules) : []),
    { name: `${loadName}: turns/s`, value: load.turnsPerSecond, unit: "turns/s" },
    { name: `${loadName}: errors`, value: load.errors, unit: "", target: { op: "==", value: 0 } },
    { name: `${loadName}: turn p50`, value: load.turnMs.p50, unit: "ms" },
    { name: `${loadName}: turn p95`, value: load.turnMs.p95, unit: "ms" },
    ...(r.fanout ? fanoutHeadlines(r.fanout) : []),
    ...(r.wake ? wakeHeadlines(r.wake) : []),
    { name: "cold start: create session p50", value: r.coldStart.createMs.p50, unit: "ms" },
    { name: "cold start: first snapshot p50", value: r.coldStart.firstSnapshotMs.p50, unit: "ms" },
    { name: "warm snapshot p50", value: r.coldStart.warmSnapshotMs.p50, unit: "ms" },
    { name: "GET /v1/tools p50 (no Durable Object)", value: r.coldStart.listToolsMs.p50, unit: "ms" },
  ];
}
