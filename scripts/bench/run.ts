/**
 * `npm run bench [-- --quick] [--peers | --peers-only] [--out FILE]`: measures the runtime end to end and
 * reports ratios taken in the same run. Copies the project to a temp dir (bench tools added there only),
 * measures the Worker's bundle and start-up CPU and what a turn costs (a metered build), starts the bench
 * LLM and `wrangler dev` on 127.0.0.1, and measures through the client SDK: the step streaming, then with
 * LLM_STREAM=false, then with guardrails bundled; compaction and code mode. `--peers` adds the
 * step, start-up and cost against other runtimes (the bench/peers package, installed then); `--peers-only`
 * runs just that. Stops everything it started, prints a table and writes JSON (bench-results/latest.json).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { startBenchLlm, type BenchLlm } from "./bench-llm.ts";
import { benchVars, createBenchClient, createBenchSession, nowMs, runTurn, streamVars } from "./driver.ts";
import { measureCodeMode } from "./measure-code-mode.ts";
import { measureCompaction } from "./measure-compaction.ts";
import { costHeadlines, measureOurCost } from "./measure-cost.ts";
import { measureHeldDeltas } from "./measure-held-deltas.ts";
import { measureStartup, startupHeadlines } from "./measure-startup.ts";
import { measureStep, stepHeadlines, type StepResult } from "./measure-step.ts";
import { loadPeers, type PeersRun } from "./peers-package.ts";
import { createProjectCopy, REPO_ROOT } from "./project-copy.ts";
import { describeMachine, formatTable, meetsTarget, round, type Headline } from "./stats.ts";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const peersOnly = argv.includes("--peers-only");
const withPeers = peersOnly || argv.includes("--peers");
const outArg = argv.indexOf("--out");
const outFile = resolve(outArg >= 0 ? argv[outArg + 1]! : join(REPO_ROOT, "bench-results", peersOnly ? "peers.json" : "latest.json"));

/** Also the plan of the step against other runtimes (peers-package.ts): sessions per runtime, mode and size. */
const PLAN = {
  startupRuns: quick ? 3 : 5,
  warmupSteps: quick ? 5 : 20,
  sizes: [10, 100, 1000],
  sessionsPerCell: quick ? 2 : 8,
  // The bench client's own requests at a turn's start (its POST and takeResponse long-poll, through wrangler's
  // proxy on the same 2 cores) land on a turn's first two steps: 25-step turns keep them to 2 samples in 25
  // (and stay under the default maxSteps, 32), in a quick run too, where 5-step turns made them 2 in 5.
  stepsPerRun: 25,
  compactionTurns: quick ? 60 : 200,
  codeModeReps: quick ? 3 : 10,
  /** What a turn costs: reference turns per size (the counts do not vary; the timings do). */
  cost: { sizes: [10, 1000], turns: quick ? 3 : 10 },
};

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function timed<T>(name: string, run: () => Promise<T>): Promise<T> {
  const t0 = nowMs();
  log(`${name}…`);
  const result = await run();
  log(`${name}: ${((nowMs() - t0) / 1000).toFixed(1)} s`);
  return result;
}

async function main(): Promise<void> {
  const started = nowMs();
  // Installed before anything is measured, so a failed install costs no run.
  const peers = withPeers ? await loadPeers(log) : undefined;
  const copy = createProjectCopy();
  // Ctrl-C ends the process through wrangler-dev's signal hook; the copy must not outlive it either.
  process.once("exit", () => copy.remove());
  let llm: BenchLlm | undefined;
  let dev: WranglerDev | undefined;
  /** A `wrangler dev` of the copy on its own state, warmed up (every path once), then `measure` on it. */
  const onDev = async <T>(name: string, stream: boolean, measure: (url: string) => Promise<T>): Promise<T> => {
    const [persistTo, vars] = [join(copy.dir, `.bench-state-${name}`), { ...benchVars(llm!.url), ...streamVars(stream) }];
    dev = await timed(`wrangler dev (${name})`, () => startWranglerDev({ cwd: copy.dir, persistTo, vars }));
    try {
      const warm = await createBenchSession(createBenchClient(dev.url), undefined, "warmup");
      await runTurn(warm, "seed 10");
      await runTurn(warm, `steps ${PLAN.warmupSteps}`);
      return await measure(dev.url);
    } finally {
      await dev.stop();
    }
  };
  const step = (name: string, stream: boolean) =>
    onDev(name, stream, (url) => timed(`step, ${name}`, () => measureStep(createBenchClient(url), llm!, PLAN)));
  try {
    const startup = await timed("start-up CPU and bundle", () => measureStartup(copy.dir, PLAN.startupRuns));
    copy.addBenchTools();
    llm = await startBenchLlm();
    const cost = await timed("what a turn costs", () => measureOurCost(copy.dir, llm!.url, PLAN.cost.sizes, PLAN.cost.turns));
    const runPeers = () => timed("step against other runtimes", () => (llm!.clear(), peers!.runPeers(copy.dir, llm!, PLAN, log)));
    if (peersOnly) {
      const peersRun = await runPeers();
      const costs = [cost, ...(peersRun.agentsSdkCost ? [peersRun.agentsSdkCost] : [])];
      const headlines = [...peersRun.headlines, ...startupHeadlines(startup, peersRun.agentsSdkStartup), ...costHeadlines(costs)];
      return writeOutput(headlines, { peers: peersRun.details, startup, cost }, started);
    }
    const streaming = await onDev("streaming", true, async (url) => {
      const client = createBenchClient(url);
      const stepResult = await timed("step, streaming", () => measureStep(client, llm!, PLAN));
      llm!.clear();
      const compaction = await timed("compaction", () => measureCompaction(client, llm!, PLAN.compactionTurns));
      return { step: stepResult, compaction };
    });
    const nonStreaming = await step("non-streaming", false);
    // The same step with one trivial input and one trivial output guardrail bundled: what guardrails add.
    const removeGuardrails = copy.addBenchGuardrails();
    const guarded = await step("guardrails-on", true);
    removeGuardrails();
    const heldDeltas = await timed("held deltas", () => measureHeldDeltas());
    const codeMode = await timed("code mode", () => measureCodeMode(copy.dir, benchVars, PLAN.codeModeReps));
    const peersRun: PeersRun | undefined = peers ? await runPeers() : undefined;
    const costs = [cost, ...(peersRun?.agentsSdkCost ? [peersRun.agentsSdkCost] : [])];
    const headlines: Headline[] = [
      ...stepHeadlines(streaming.step, "", true),
      ...stepHeadlines(nonStreaming, " (non-streaming)"),
      ...ratioHeadlines("guardrails on ÷ off", guarded, streaming.step),
      { name: "added per streamed delta held for an output guardrail", value: heldDeltas.addedUsPerDelta, unit: "µs" },
      ...(peersRun?.headlines ?? []),
      ...startupHeadlines(startup, peersRun?.agentsSdkStartup),
      ...costHeadlines(costs),
      ...streaming.compaction.headlines,
      ...codeMode.headlines,
    ];
    const details = { ...streaming, nonStreaming, guarded, heldDeltas, startup, cost: costs, codeMode, peers: peersRun?.details };
    writeOutput(headlines, details, started);
  } finally {
    await dev?.stop();
    await llm?.close();
    copy.remove();
  }
}

const ratioHeadlines = (what: string, on: StepResult, off: StepResult): Headline[] =>
  on.bySize.map((s, i) => ({ name: `step p50 ${what}, ${s.history} msgs`, value: s.gapMs.p50 / off.bySize[i]!.gapMs.p50, unit: "×" }));

function writeOutput(headlines: Headline[], details: unknown, started: number): void {
  const machine = describeMachine();
  // The load average says how far absolute times from a shared machine can be trusted (ratios hold better).
  const loadAverage = loadavg().map((l) => round(l));
  const durationS = (nowMs() - started) / 1000;
  const output = { generatedAt: new Date().toISOString(), quick, peers: withPeers, peersOnly, machine, loadAverage, durationS };
  const marked = headlines.map((h) => ({ ...h, met: meetsTarget(h) }));
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify({ ...output, headlines: marked, details }, null, 2)}\n`);
  const what = `bench${peersOnly ? ", against other runtimes" : ""}${quick ? " (quick)" : ""}`;
  const on = `${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}, load ${loadAverage.join(" ")}`;
  process.stdout.write(`\nedge-agent ${what}: ${on}\n\n${formatTable(headlines)}\n\nJSON: ${outFile} (${durationS.toFixed(0)} s)\n`);
}

if (argv.includes("--help") || argv.includes("-h")) {
  process.stdout.write("usage: npm run bench [-- --quick] [--peers | --peers-only] [--out FILE] (docs/benchmarks.md)\n");
} else {
  main().catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}
