/**
 * `npm run bench [-- --quick] [--peers | --peers-only] [--out FILE]`: measures the runtime end to end and
 * reports ratios taken in the same run. Copies the project to a temp dir (bench tools added there only),
 * measures the Worker's bundle and start-up CPU, starts the bench LLM and `wrangler dev` on 127.0.0.1,
 * runs each measurement through the client SDK (schedules included), repeats the step with streaming off
 * and with tracing on (spans exported to a local OTLP receiver, otlp-sink.ts), measures what a turn costs
 * (measure-cost.ts, a metered build), stops everything it started, prints a table and writes JSON (default
 * bench-results/latest.json). `--peers` adds the step, start-up and cost against other runtimes (the bench/peers package, installed then); `--peers-only` runs just that.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { startBenchLlm, type BenchLlm } from "./bench-llm.ts";
import { benchVars, createBenchClient, createBenchSession, nowMs, runTurn, streamVars } from "./driver.ts";
import { buildHeadlines, startupHeadlines, type BenchResults } from "./headlines.ts";
import { measureCodeMode } from "./measure-code-mode.ts";
import { measureColdStart } from "./measure-cold-start.ts";
import { measureCompaction } from "./measure-compaction.ts";
import { costHeadlines, measureOurCost } from "./measure-cost.ts";
import { measureFanout } from "./measure-fanout.ts";
import { measureHeldDeltas } from "./measure-held-deltas.ts";
import { measureLoad } from "./measure-load.ts";
import { measureSseLatency, measureSseThroughput } from "./measure-sse.ts";
import { measureStartup } from "./measure-startup.ts";
import { measureScheduleLatency } from "./measure-schedules.ts";
import { measureStepOverhead } from "./measure-step-overhead.ts";
import { measureSubAgentHop } from "./measure-subagent-hop.ts";
import { measureWake } from "./measure-wake.ts";
import { startOtlpSink } from "./otlp-sink.ts";
import { loadPeers, type PeersEntry, type PeersPlan, type PeersRun } from "./peers-package.ts";
import { createProjectCopy, REPO_ROOT, type ProjectCopy } from "./project-copy.ts";
import { describeMachine, formatTable, meetsTarget, type Headline } from "./report.ts";
import { round } from "./stats.ts";

const USAGE = `usage: npm run bench [-- --quick] [--peers | --peers-only] [--out FILE]
  --quick       fewer repetitions, for a smoke run
  --peers       also the step and start-up CPU against the Agents SDK and pi-agent-core (installs bench/peers)
  --peers-only  just that comparison (JSON default bench-results/peers.json)
  --out FILE    where the JSON goes (default bench-results/latest.json)
`;
const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const peersOnly = argv.includes("--peers-only");
const withPeers = peersOnly || argv.includes("--peers");
const outArg = argv.indexOf("--out");
const outFile = resolve(outArg >= 0 ? argv[outArg + 1]! : join(REPO_ROOT, "bench-results", peersOnly ? "peers.json" : "latest.json"));

const SIZES = [10, 100, 1000];
const WAKE_SIZES = [10, 1000, 10_000];
/**
 * Steps per measured turn. The bench client's own requests at a turn's start (the message POST and its
 * takeResponse long-poll, through wrangler's proxy on the same 2 cores) land on a turn's first two steps;
 * 25-step turns keep them to 2 samples in 25.
 */
const STEPS_PER_TURN = 25;
const PLAN = quick
  ? {
      coldStarts: 5,
      startups: 3,
      warmupSteps: 5,
      step: { sizes: SIZES, sessionsPerSize: 2, stepsPerRun: 5 },
      sseLatencyEvents: 50,
      scheduleFires: 10,
      load: { sessions: 10, turnsPerSession: 3 },
      fanout: { sessions: 20, subscribersPerSession: 10 },
      wake: { sizes: WAKE_SIZES, restarts: 1 },
    }
  : {
      coldStarts: 20,
      startups: 5,
      warmupSteps: 20,
      step: { sizes: SIZES, sessionsPerSize: 8, stepsPerRun: STEPS_PER_TURN },
      sseLatencyEvents: 300,
      scheduleFires: 50,
      load: { sessions: 50, turnsPerSession: 5 },
      fanout: { sessions: 100, subscribersPerSession: 10 },
      wake: { sizes: WAKE_SIZES, restarts: 6 },
    };

/** What a turn costs: reference turns per size (the counts do not vary; the timings do). */
const COST = { sizes: [10, 1000], turns: quick ? 3 : 10 };

/** The step against other runtimes: sessions per runtime, mode and size (each one turn of STEPS_PER_TURN steps). */
const PEERS_PLAN: PeersPlan = {
  cost: COST,
  sizes: [10, 1000],
  sessionsPerCell: quick ? 2 : 8,
  stepsPerRun: quick ? 5 : STEPS_PER_TURN,
  warmupSteps: quick ? 5 : 20,
  startupRuns: PLAN.startups,
};

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function timed<T>(name: string, run: () => Promise<T>): Promise<T> {
  const t0 = nowMs();
  log(`${name}…`);
  const result = await run();
  log(`${name}: ${((nowMs() - t0) / 1000).toFixed(1)} s`);
  return result;
}

function startDev(dir: string, llm: BenchLlm, persistTo: string, stream: boolean, more: Record<string, string> = {}): Promise<WranglerDev> {
  return startWranglerDev({ cwd: dir, persistTo, vars: { ...benchVars(llm.url), ...streamVars(stream), ...more } });
}

/** A session that exercises every path once, so the measured runs meet warm code. */
async function warmUp(baseUrl: string, steps: number): Promise<void> {
  const session = await createBenchSession(createBenchClient(baseUrl), ["benchEcho"], "warmup");
  await runTurn(session, "seed 10");
  await runTurn(session, `steps ${steps}`);
}

const runPeers = (copy: ProjectCopy, llm: BenchLlm, peers: PeersEntry): Promise<PeersRun> =>
  timed("step against other runtimes", () => (llm.clear(), peers.runPeers(copy.dir, llm, PEERS_PLAN, log)));

async function main(): Promise<void> {
  const started = nowMs();
  // Installed before anything is measured, so a failed install costs no run.
  const peers = withPeers ? await loadPeers(log) : undefined;
  const copy = createProjectCopy();
  // Ctrl-C ends the process through wrangler-dev's signal hook; the copy must not outlive it either.
  process.once("exit", () => copy.remove());
  let llm: BenchLlm | undefined;
  let dev: WranglerDev | undefined;
  try {
    const startup = await timed("start-up CPU and bundle", () => measureStartup(copy.dir, PLAN.startups));
    copy.addBenchTools();
    llm = await startBenchLlm();
    const cost = await timed("what a turn costs", () => measureOurCost(copy.dir, llm!.url, COST.sizes, COST.turns));
    if (peersOnly) {
      const peersRun = await runPeers(copy, llm, peers!);
      const headlines = [
        ...peersRun.headlines,
        ...startupHeadlines(startup, peersRun.agentsSdkStartup),
        ...costHeadlines([cost, ...(peersRun.agentsSdkCost ? [peersRun.agentsSdkCost] : [])]),
      ];
      return writeOutput(headlines, { peers: peersRun.details, startup, cost }, { durationS: (nowMs() - started) / 1000 });
    }
    const devStarted = nowMs();
    const persistTo = join(copy.dir, ".bench-state");
    dev = await timed("wrangler dev", () => startDev(copy.dir, llm!, persistTo, true));
    const devReadyMs = nowMs() - devStarted;
    const client = createBenchClient(dev.url);

    const coldStart = await timed("cold start", () => measureColdStart(client, PLAN.coldStarts));
    await timed("warm-up", () => warmUp(dev!.url, PLAN.warmupSteps));
    const stepOverhead = await timed("step overhead", () => measureStepOverhead(client, llm!, PLAN.step));
    const subAgentHop = await timed("sub-agent hop", () => measureSubAgentHop(client, llm!, quick ? 5 : 30));
    llm.clear();
    const compaction = await timed("compaction", () => measureCompaction(client, llm!, quick ? 60 : 200));
    const sseLatency = await timed("SSE latency", () => measureSseLatency(client, { events: PLAN.sseLatencyEvents, spacingMs: 5 }));
    const sseThroughput = await timed("SSE throughput", () => measureSseThroughput(client, { events: 2000, subscribers: 5 }));
    llm.clear();
    const schedules = await timed("schedule latency", () => measureScheduleLatency(client, llm!, PLAN.scheduleFires));
    const load = await timed("load", () => measureLoad(client, PLAN.load));
    const fanout = await timed("fan-out to idle subscribers", () =>
      measureFanout(client, dev!.url, { ...PLAN.fanout, processGroup: dev!.processGroup }),
    );
    llm.clear();
    const restart = async () => {
      await dev!.stop();
      dev = await startDev(copy.dir, llm!, persistTo, true);
      return { client: createBenchClient(dev.url), url: dev.url, inspectorPort: dev.inspectorPort };
    };
    const wake = await timed("wake and heap by history length", () =>
      measureWake({ client, url: dev!.url, inspectorPort: dev!.inspectorPort }, restart, PLAN.wake),
    );
    await dev.stop();

    dev = await timed("wrangler dev (LLM_STREAM=false)", () => startDev(copy.dir, llm!, join(copy.dir, ".bench-state-nostream"), false));
    await warmUp(dev.url, PLAN.warmupSteps);
    const stepOverheadNonStreaming = await timed("step overhead, non-streaming", () =>
      measureStepOverhead(createBenchClient(dev!.url), llm!, PLAN.step),
    );
    await dev.stop();

    // The same step with every run traced and exported: what tracing adds to the step, in this run.
    const sink = await startOtlpSink();
    const tracingVars = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
    dev = await timed("wrangler dev (tracing on)", () =>
      startDev(copy.dir, llm!, join(copy.dir, ".bench-state-traced"), true, tracingVars),
    );
    await warmUp(dev.url, PLAN.warmupSteps);
    const stepOverheadTracing = {
      ...(await timed("step overhead, tracing on", () => measureStepOverhead(createBenchClient(dev!.url), llm!, PLAN.step))),
      spansExported: 0,
    };
    await dev.stop();
    stepOverheadTracing.spansExported = sink.spans();
    await sink.close();

    // The same step with one trivial input and one trivial output guardrail bundled: what guardrails add.
    const guardrailFiles = copy.addBenchGuardrails();
    dev = await timed("wrangler dev (guardrails on)", () => startDev(copy.dir, llm!, join(copy.dir, ".bench-state-guarded"), true));
    await warmUp(dev.url, PLAN.warmupSteps);
    const stepOverheadGuarded = await timed("step overhead, guardrails on", () =>
      measureStepOverhead(createBenchClient(dev!.url), llm!, PLAN.step),
    );
    await dev.stop();
    copy.removeBenchGuardrails(guardrailFiles);
    const heldDeltas = await timed("held deltas", () => measureHeldDeltas());
    const codeMode = await timed("code mode", () => measureCodeMode(copy.dir, benchVars, quick ? 3 : 10));
    const peersRun = peers ? await runPeers(copy, llm, peers) : undefined;

    const results: BenchResults = {
      stepOverhead,
      stepOverheadNonStreaming,
      stepOverheadTracing,
      stepOverheadGuarded,
      heldDeltas,
      sseLatency,
      sseThroughput,
      schedules,
      load,
      fanout,
      wake,
      coldStart,
      startup,
      ...(peersRun ? { peers: peersRun } : {}),
    };
    const costs = [cost, ...(peersRun?.agentsSdkCost ? [peersRun.agentsSdkCost] : [])];
    writeOutput(
      [...buildHeadlines(results), ...costHeadlines(costs), ...subAgentHop.headlines, ...compaction.headlines, ...codeMode.headlines],
      { ...results, cost: costs, subAgentHop, compaction, codeMode, peers: peersRun?.details },
      { durationS: (nowMs() - started) / 1000, devReadyMs },
    );
  } finally {
    await dev?.stop();
    await llm?.close();
    copy.remove();
  }
}

function writeOutput(headlines: Headline[], details: unknown, extra: { durationS: number; devReadyMs?: number }): void {
  const machine = describeMachine();
  // The load average says how far absolute times from a shared machine can be trusted (ratios hold better).
  const output = {
    generatedAt: new Date().toISOString(),
    quick,
    peers: withPeers,
    peersOnly,
    machine,
    loadAverage: loadavg().map((l) => round(l)),
    ...extra,
    headlines: headlines.map((h) => ({ ...h, met: meetsTarget(h) })),
    details,
  };
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(output, null, 2)}\n`);
  const what = peersOnly ? "bench, against other runtimes" : "bench";
  process.stdout.write(
    `\nedge-agent ${what}${quick ? " (quick)" : ""}: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}, load ${output.loadAverage.join(" ")}\n\n`,
  );
  process.stdout.write(`${formatTable(headlines)}\n\nJSON: ${outFile} (${extra.durationS.toFixed(0)} s)\n`);
}

if (argv.includes("--help") || argv.includes("-h")) {
  process.stdout.write(USAGE);
} else {
  main().catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}
