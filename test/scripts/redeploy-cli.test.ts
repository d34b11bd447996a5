/**
 * scripts/redeploy.ts's command line, run as a child process: what it answers before it touches any
 * index (help, bad options). Quick: nothing is read or started.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../../scripts/redeploy.ts", import.meta.url));
const NODE_TS = ["--experimental-transform-types", "--disable-warning=ExperimentalWarning"];

function redeploy(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...NODE_TS, SCRIPT, ...args], (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

// Each test starts Node with type stripping: about a second alone, several on a busy machine.
describe("npm run redeploy's options", { timeout: 30_000 }, () => {
  it("--help prints the usage, where npm start keeps its state, and how to try it without an account", async () => {
    const run = await redeploy("--help");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run redeploy -- \[options\]/);
    for (const option of ["--local", "--persist-to DIR", "--dry-run", "--no-deploy", "--yes", "--config FILE", "--help"])
      expect(run.stdout).toContain(option);
    expect(run.stdout).toContain("default .wrangler/state, where `npm start`");
    expect(run.stdout).toContain("npm run redeploy -- --local --dry-run");
  });

  it("names an unknown option and points at --help", async () => {
    const run = await redeploy("--frobnicate");
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe("redeploy: unknown option --frobnicate (`npm run redeploy -- --help` lists the options)");
  });

  it("refuses --persist-to without --local", async () => {
    const run = await redeploy("--persist-to", "somewhere");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--persist-to works only with --local");
  });
});
