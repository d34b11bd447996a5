/**
 * `npm run bench`: measures the runtime end to end and reports ratios taken in the same run. Copies the
 * project to a temp dir (bench tools added there only), measures the bundle, starts the bench LLM and
 * `wrangler dev` on 127.0.0.1, runs each measurement through the client SDK, repeats the step measurement
 * on a second `wrangler dev` with streaming off (both next to the step floor's Worker, floor-worker.ts),
 * stops everything it started, prints a table and writes
 * JSON (default bench-results/latest.json). `--quick` runs fewer repetitions; `--out FILE` moves the JSON.
 * Last, the step against other runtimes (measure-peers.ts); `--peers-only` runs just that comparison
 * (JSON default bench-results/peers.json).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { startBenchLlm, type BenchLlm } from "./bench-llm.ts";
import { createBenchClient, createBenchSession, nowMs, runTurn } from "./driver.ts";
import { buildHeadlines, type BenchResults } from "./headlines.ts";
import { measureBundle } from "./measure-bundle.ts";
import { measureColdStart } from "./measure-cold-start.ts";
import { reportContextPolicy } from "./measure-context-policy.ts";
import { measureFanout } from "./measure-fanout.ts";
import { measureLoad } from "./measure-load.ts";
import { measureParallel } from "./measure-parallel.ts";
import { peerHeadlines, runPeerComparison, type PeerComparisonOptions } from "./measure-peers.ts";
import { measureSseLatency, measureSseThroughput } from "./measure-sse.ts";
import { startFloorWorker, type FloorWorker } from "./floor-worker.ts";
import { measureStepOverhead } from "./measure-step-overhead.ts";
import { measureStorage } from "./measure-storage.ts";
import { measureWake } from "./measure-wake.ts";
import { createProjectCopy, REPO_ROOT } from "./project-copy.ts";
import { describeMachine, formatTable, meetsTarget, type Headline } from "./report.ts";
import { round } from "./stats.ts";

const quick = process.argv.includes("--quick");
const peersOnly = process.argv.includes("--peers-only");
const outArg = process.argv.indexOf("--out");
const outFile = resolve(outArg >= 0 ? process.argv[outArg + 1]! : join(REPO_ROOT, "bench-results", peersOnly ? "peers.json" : "latest.json"));

const SIZES = [10, 100, 1000];
const WAKE_SIZES = [10, 1000, 10_000];
/**
 * Steps per measured turn. The bench client's own requests at a turn's start (the message POST and its
 * takeResponse long-poll, through wrangler's proxy on the same 2 cores) land on a turn's first two steps
 * (+1–2 ms p50 there, `npm run bench:ab` by place in the turn); 25-step turns keep them to 2 samples in 25.
 */
const STEPS_PER_TURN = 25;
const PLAN = quick
  ? { coldStarts: 5, warmupSteps: 5, step: { sizes: SIZES, sessionsPerSize: 2, stepsPerRun: 5 }, stepNonStreaming: { sizes: SIZES, sessionsPerSize: 2, stepsPerRun: 5 }, parallelRuns: 3, sseLatencyEvents: 50, load: { sessions: 10, turnsPerSession: 3 }, fanout: { sessions: 20, subscribersPerSession: 10 }, wake: { sizes: WAKE_SIZES, restarts: 1 } }
  : { coldStarts: 20, warmupSteps: 20, step: { sizes: SIZES, sessionsPerSize: 8, stepsPerRun: STEPS_PER_TURN }, stepNonStreaming: { sizes: SIZES, sessionsPerSize: 8, stepsPerRun: STEPS_PER_TURN }, parallelRuns: 20, sseLatencyEvents: 300, load: { sessions: 50, turnsPerSession: 5 }, fanout: { sessions: 100, subscribersPerSession: 10 }, wake: { sizes: WAKE_SIZES, restarts: 6 } };

/** The step against other runtimes: sessions per runtime, mode and size (each one turn of STEPS_PER_TURN steps). */
const PEERS_PLAN: PeerComparisonOptions = { sizes: [10, 1000], sessionsPerCell: quick ? 2 : 8, stepsPerRun: quick ? 5 : STEPS_PER_TURN, warmupSteps: quick ? 5 : 20 };

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function timed<T>(name: string, run: () => Promise<T>): Promise<T> {
  const t0 = nowMs();
  log(`${name}…`);
  const result = await run();
  log(`${name}: ${((nowMs() - t0) / 1000).toFixed(1)} s`);
  return result;
}

function startDev(dir: string, llm: BenchLlm, persistTo: string, extraVars: Record<string, string> = {}): Promise<WranglerDev> {
  return startWranglerDev({
    cwd: dir,
    persistTo,
    vars: { OPENAI_API_KEY: "bench", OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "bench-model", MAX_RETRY_DELAY_MS: "20", ...extraVars },
  });
}

/** A session that exercises every path once, so the measured runs meet warm code. */
async function warmUp(baseUrl: string, steps: number): Promise<void> {
  const session = await createBenchSession(createBenchClient(baseUrl), ["benchEcho"], "warmup");
  await runTurn(session, "seed 10");
  await runTurn(session, `steps ${steps}`);
}

async function main(): Promise<void> {
  const started = nowMs();
  const copy = createProjectCopy();
  // Ctrl-C ends the process through wrangler-dev's signal hook; the copy must not outlive it either.
  process.once("exit", () => copy.remove());
  let llm: BenchLlm | undefined;
  let dev: WranglerDev | undefined;
  let floor: FloorWorker | undefined;
  try {
    await timed("context policy per step", reportContextPolicy);
    const bundle = await timed("bundle size", async () => [await measureBundle(copy.dir, false), await measureBundle(copy.dir, true)]);
    copy.addBenchTools();
    llm = await startBenchLlm();
    floor = await timed("step floor Worker", () => startFloorWorker(llm!.url));
    const devStarted = nowMs();
    const persistTo = join(copy.dir, ".bench-state");
    dev = await timed("wrangler dev", () => startDev(copy.dir, llm!, persistTo));
    const devReadyMs = nowMs() - devStarted;
    const client = createBenchClient(dev.url);

    const coldStart = await timed("cold start", () => measureColdStart(client, PLAN.coldStarts));
    await timed("warm-up", () => warmUp(dev!.url, PLAN.warmupSteps));
    const stepOverhead = await timed("step overhead", () => measureStepOverhead(client, llm!, { ...PLAN.step, floor }));
    const storage = await timed("storage per step", () => measureStorage(client, persistTo));
    const parallel = await timed("parallel batch", () => measureParallel(client, llm!, { tools: 8, sleepMs: 100, runs: PLAN.parallelRuns }));
    const sseLatency = await timed("SSE latency", () => measureSseLatency(client, { events: PLAN.sseLatencyEvents, spacingMs: 5 }));
    const sseThroughput = await timed("SSE throughput", () => measureSseThroughput(client, { events: 2000, subscribers: 5 }));
    llm.clear();
    const load = await timed("load", () => measureLoad(client, PLAN.load));
    const fanout = await timed("fan-out to idle subscribers", () => measureFanout(client, dev!.url, { ...PLAN.fanout, processGroup: dev!.processGroup }));
    llm.clear();
    const restart = async () => {
      await dev!.stop();
      dev = await startDev(copy.dir, llm!, persistTo);
      return { client: createBenchClient(dev.url), url: dev.url, inspectorPort: dev.inspectorPort };
    };
    const wake = await timed("wake and heap by history length", () => measureWake({ client, url: dev!.url, inspectorPort: dev!.inspectorPort }, restart, PLAN.wake));
    await dev.stop();

    dev = await timed("wrangler dev (LLM_STREAM=false)", () => startDev(copy.dir, llm!, join(copy.dir, ".bench-state-nostream"), { LLM_STREAM: "false" }));
    await warmUp(dev.url, PLAN.warmupSteps);
    const stepOverheadNonStreaming = await timed("step overhead, non-streaming", () => measureStepOverhead(createBenchClient(dev!.url), llm!, { ...PLAN.stepNonStreaming, floor }));
    await dev.stop();
    await floor.stop();
    floor = undefined;
    llm.clear();
    const peers = await timed("step against other runtimes", () => runPeerComparison(copy.dir, llm!, PEERS_PLAN, log));

    const results: BenchResults = { stepOverhead, stepOverheadNonStreaming, parallel, sseLatency, sseThroughput, load, fanout, wake, bundle, storage, coldStart, peers };
    writeOutput(buildHeadlines(results), results, { durationS: (nowMs() - started) / 1000, devReadyMs });
  } finally {
    await dev?.stop();
    await floor?.stop();
    await llm?.close();
    copy.remove();
  }
}

function writeOutput(headlines: Headline[], details: unknown, extra: { durationS: number; devReadyMs?: number }): void {
  const machine = describeMachine();
  // The load average says how far absolute times from a shared machine can be trusted (ratios hold better).
  const output = { generatedAt: new Date().toISOString(), quick, peersOnly, machine, loadAverage: loadavg().map((l) => round(l)), ...extra, headlines: headlines.map((h) => ({ ...h, met: meetsTarget(h) })), details };
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(output, null, 2)}\n`);
  const what = peersOnly ? "bench, step against other runtimes" : "bench";
  process.stdout.write(`\nedge-agent ${what}${quick ? " (quick)" : ""}: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}, load ${output.loadAverage.join(" ")}\n\n`);
  process.stdout.write(`${formatTable(headlines)}\n\nJSON: ${outFile} (${extra.durationS.toFixed(0)} s)\n`);
}

/** `--peers-only`: the comparison alone, on a project copy with the bench tools and the bench LLM. */
async function mainPeersOnly(): Promise<void> {
  const started = nowMs();
  const copy = createProjectCopy();
  process.once("exit", () => copy.remove());
  let llm: BenchLlm | undefined;
  try {
    copy.addBenchTools();
    llm = await startBenchLlm();
    const peers = await timed("step against other runtimes", () => runPeerComparison(copy.dir, llm!, PEERS_PLAN, log));
    writeOutput(peerHeadlines(peers), { peers }, { durationS: (nowMs() - started) / 1000 });
  } finally {
    await llm?.close();
    copy.remove();
  }
}

(peersOnly ? mainPeersOnly() : main()).catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
