/**
 * The peer comparison lives in its own package, bench/peers, with its own lockfile, so the runtime's
 * `npm install` carries none of the peers' SDKs. `loadPeers()` installs that package when the bench is
 * asked for `--peers` and imports its entry by a computed path, which keeps this project's typecheck (and
 * a fresh clone) from needing it. The types below are the contract bench/peers/index.ts implements.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BenchLlm } from "./bench-llm.ts";
import type { CostResult } from "./measure-cost.ts";
import type { StartupResult } from "./measure-startup.ts";
import { REPO_ROOT } from "./project-copy.ts";
import type { StepPlan } from "./measure-step.ts";
import type { Headline } from "./stats.ts";

export const PEERS_DIR = join(REPO_ROOT, "bench", "peers");

/** Sessions per runtime, mode and size (one turn of `stepsPerRun` steps each), and start-up profiles per Worker. */
export type PeersPlan = StepPlan & {
  warmupSteps: number;
  startupRuns: number;
  /** What a turn costs (measure-cost.ts): at these sizes, this many reference turns each. */
  cost: { sizes: number[]; turns: number };
};

export type PeersRun = { headlines: Headline[]; details: unknown; agentsSdkStartup?: StartupResult; agentsSdkCost?: CostResult };

export type PeersEntry = {
  /** Starts every peer beside this Worker's copy in `copyDir`, measures them interleaved, stops them all. */
  runPeers(copyDir: string, llm: BenchLlm, plan: PeersPlan, log: (message: string) => void): Promise<PeersRun>;
};

/** `npm install` in bench/peers (quick when it is current), then its entry. */
export async function loadPeers(log: (message: string) => void): Promise<PeersEntry> {
  log("installing the peers' package (bench/peers)…");
  await new Promise<void>((resolve, reject) => {
    // Its output goes to stderr, so stdout stays the bench's table.
    const child = spawn("npm", ["install", "--no-audit", "--no-fund"], { cwd: PEERS_DIR, stdio: ["ignore", 2, 2] });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`npm install in ${PEERS_DIR} exited with ${code}`))));
  });
  const entry = pathToFileURL(join(PEERS_DIR, "index.ts")).href;
  return (await import(entry)) as PeersEntry;
}
