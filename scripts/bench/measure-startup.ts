/**
 * A Worker's start-up and size, from `wrangler check startup`: it bundles the Worker as `wrangler deploy`
 * would (printing the bundle's size, raw and gzip) and profiles its start-up (module initialisation and
 * top-level code) in a local workerd; "Active" is the CPU that took, what Cloudflare's start-up limit is
 * about. Run a few times, the median kept. Called by run.ts for this Worker (before bench tools are added,
 * so it is what ships) and by bench/peers for the Agents SDK's Worker, so both come from one run.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./project-copy.ts";
import { summarize, type Headline, type Summary } from "./stats.ts";

export type StartupResult = { runs: number; activeMs: Summary; bundleKiB: number; bundleGzipKiB: number };

const WRANGLER = join(REPO_ROOT, "node_modules", ".bin", "wrangler");
const ACTIVE = /Active:\s+([\d.]+)\s*ms/;
const BUNDLE = /Bundle:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/;

/** `config`: a wrangler config other than the one in `cwd`. */
export async function measureStartup(cwd: string, runs: number, config?: string): Promise<StartupResult> {
  const scratch = mkdtempSync(join(tmpdir(), "edge-agent-startup-"));
  const active: number[] = [];
  let bundle: RegExpExecArray | null = null;
  try {
    for (let i = 0; i < runs; i++) {
      const args = ["check", "startup", "--outfile", join(scratch, `startup-${i}.cpuprofile`), ...(config ? ["--config", config] : [])];
      const env = { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };
      const { stdout, stderr } = await promisify(execFile)(WRANGLER, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
      const output = `${stdout}\n${stderr}`;
      const match = ACTIVE.exec(output);
      bundle ??= BUNDLE.exec(output);
      if (!match || !bundle)
        throw new Error(`wrangler check startup in ${cwd} printed no start-up or bundle figure:\n${output.slice(-2000)}`);
      active.push(Number(match[1]));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { runs, activeMs: summarize(active), bundleKiB: Number(bundle![1]), bundleGzipKiB: Number(bundle![2]) };
}

/** Start-up CPU and bundle of this Worker and, with `--peers`, of the Agents SDK Worker, from the same run. */
export function startupHeadlines(ours: StartupResult, sdk?: StartupResult): Headline[] {
  const of = (who: string, r: StartupResult): Headline[] => [
    { name: `start-up CPU (wrangler check startup), ${who}`, value: r.activeMs.p50, unit: "ms" },
    { name: `bundle gzip, ${who}`, value: r.bundleGzipKiB, unit: "KiB", ...(sdk && r === sdk ? {} : { target: { op: "<=", value: 200 } }) },
    { name: `bundle raw, ${who}`, value: r.bundleKiB, unit: "KiB" },
  ];
  if (!sdk) return of("this Worker", ours);
  return [
    ...of("this Worker", ours),
    ...of("Agents SDK", sdk),
    // Start-up at most a quarter of the Agents SDK Worker's.
    { name: "start-up CPU: ours ÷ Agents SDK", value: ours.activeMs.p50 / sdk.activeMs.p50, unit: "×", target: { op: "<=", value: 0.25 } },
    { name: "bundle gzip: ours ÷ Agents SDK", value: ours.bundleGzipKiB / sdk.bundleGzipKiB, unit: "×" },
  ];
}
