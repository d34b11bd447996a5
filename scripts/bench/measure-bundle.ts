/**
 * Worker bundle size: `wrangler deploy --dry-run --outdir` in the project copy (before bench tools are
 * added, so this is what ships), as configured and once more with `--minify`. Reports wrangler's own
 * "Total Upload" figures and the raw and gzip sizes of the emitted index.js, measured here.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { gzipSync } from "node:zlib";
import { REPO_ROOT } from "./project-copy.ts";

export type BundleSize = {
  minify: boolean;
  /** index.js as emitted, in KiB. */
  rawKiB: number;
  gzipKiB: number;
  /** What wrangler printed ("Total Upload: X KiB / gzip: Y KiB"), modules and assets manifest included. */
  wranglerTotalKiB?: number;
  wranglerGzipKiB?: number;
};

const KIB = 1024;

export async function measureBundle(projectDir: string, minify: boolean): Promise<BundleSize> {
  const outDir = join(projectDir, minify ? "dist-bench-min" : "dist-bench");
  const args = ["deploy", "--dry-run", "--outdir", outDir, ...(minify ? ["--minify"] : [])];
  const output = await runWrangler(projectDir, args);
  const code = readFileSync(join(outDir, "index.js"));
  const total = /Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(output);
  return {
    minify,
    rawKiB: code.byteLength / KIB,
    gzipKiB: gzipSync(code).byteLength / KIB,
    ...(total ? { wranglerTotalKiB: Number(total[1]), wranglerGzipKiB: Number(total[2]) } : {}),
  };
}

function runWrangler(cwd: string, args: string[]): Promise<string> {
  const bin = join(REPO_ROOT, "node_modules", ".bin");
  return new Promise((resolve, reject) => {
    const child = spawn(join(bin, "wrangler"), args, {
      cwd,
      env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(output) : reject(new Error(`wrangler ${args.join(" ")} exited with ${code}:\n${output}`))));
  });
}
