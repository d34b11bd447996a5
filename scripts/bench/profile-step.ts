/**
 * `npm run bench:profile`: a CPU profile of the Worker's isolate while a session makes steps (one cheap
 * tool call per LLM reply), to see where a step spends its time. Starts the bench LLM and an unminified
 * `wrangler dev` on the bench's project copy, samples the isolate through the Chrome DevTools protocol
 * (the `--inspector-port` wrangler opens), prints the functions with the most self and total time, and
 * writes the `.cpuprofile` (open it in Chrome DevTools). Flags: `--no-stream`, `--history N`, `--turns N`.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startWranglerDev } from "../../support/wrangler-dev.ts";
import { startBenchLlm } from "./bench-llm.ts";
import { createBenchClient, createBenchSession, runTurn } from "./driver.ts";
import { processCpuSeconds, startCpuProfile, summarizeProfile } from "./inspect-workerd.ts";
import { createProjectCopy, REPO_ROOT } from "./project-copy.ts";
import { waitForIdleCpus } from "./settle.ts";

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};
const stream = !argv.includes("--no-stream");
const history = flag("--history", 10);
const turns = flag("--turns", 20);
/** `--no-profile`: only the step gaps, without the sampling profiler's overhead (for A/B comparisons). */
const profiling = !argv.includes("--no-profile");
/** Steps per turn: below the loop's 32-step limit. */
const STEPS_PER_TURN = 25;

async function main(): Promise<void> {
  const copy = createProjectCopy();
  process.once("exit", () => copy.remove());
  copy.addBenchTools();
  const llm = await startBenchLlm();
  const dev = await startWranglerDev({
    cwd: copy.dir,
    persistTo: join(copy.dir, ".profile-state"),
    extraArgs: ["--minify=false"],
    vars: { OPENAI_API_KEY: "bench", OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "bench-model", MAX_RETRY_DELAY_MS: "20", ...(stream ? {} : { LLM_STREAM: "false" }) },
  });
  try {
    const client = createBenchClient(dev.url);
    const session = await createBenchSession(client, ["benchEcho"], "profile");
    await runTurn(session, `seed ${history}`);
    await runTurn(session, `steps ${STEPS_PER_TURN}`); // warm
    await waitForIdleCpus(); // what seeding left behind (settle.ts) is not the step's
    llm.clear();
    const profiler = profiling ? await startCpuProfile(dev.inspectorPort) : undefined;
    const cpuBefore = processCpuSeconds("workerd", dev.processGroup);
    for (let i = 0; i < turns; i++) await runTurn(session, `steps ${STEPS_PER_TURN}`);
    const cpuSeconds = processCpuSeconds("workerd", dev.processGroup) - cpuBefore;
    const profile = await profiler?.stop();
    const gaps = llm.gaps.filter((g) => g.command.startsWith("steps")).map((g) => g.gapMs).sort((a, b) => a - b);
    const steps = gaps.length;
    const summary = `${steps} steps (${stream ? "streaming" : "non-streaming"}, ${history} messages), gap p50 ${gaps[Math.floor(steps / 2)]?.toFixed(2)} ms`;
    const cpuPerStepMs = (cpuSeconds * 1000) / (turns * (STEPS_PER_TURN + 1));
    process.stdout.write(`${summary}, p95 ${gaps[Math.floor(steps * 0.95)]?.toFixed(2)} ms; workerd CPU ${cpuPerStepMs.toFixed(2)} ms per LLM request\n`);
    if (!profile) return;
    const out = join(REPO_ROOT, "bench-results", `step-${stream ? "stream" : "nostream"}-${history}.cpuprofile`);
    mkdirSync(join(REPO_ROOT, "bench-results"), { recursive: true });
    writeFileSync(out, JSON.stringify(profile));
    // The profile's line numbers point into wrangler's dev bundle, which dies with the project copy.
    const bundle = devBundleOf(copy.dir);
    if (bundle) copyFileSync(bundle, out.replace(/\.cpuprofile$/, ".bundle.js"));
    process.stdout.write(`${summarizeProfile(profile, steps)}\nprofile: ${out}\n`);
  } finally {
    await dev.stop();
    await llm.close();
    copy.remove();
  }
}

function devBundleOf(projectDir: string): string | undefined {
  const tmp = join(projectDir, ".wrangler", "tmp");
  if (!existsSync(tmp)) return undefined;
  const dev = readdirSync(tmp).find((name) => name.startsWith("dev-") && existsSync(join(tmp, name, "index.js")));
  return dev ? join(tmp, dev, "index.js") : undefined;
}

main().catch((err: unknown) => {
  process.stderr.write(`profile failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
