/**
 * The permission model the redeploy runs tsc under (scripts/redeploy/check-tool.ts): a Node process with
 * these flags reads the project but can neither write a file nor start a process.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readOnlyNodeFlags } from "../../scripts/redeploy/check-tool.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function runReadOnly(script: string): Promise<{ code: number; output: string }> {
  return readOnlyNodeFlags(ROOT).then(
    (flags) =>
      new Promise((resolve) => {
        execFile(process.execPath, [...flags, "-e", script], { cwd: ROOT }, (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, output: `${stdout}${stderr}` }),
        );
      }),
  );
}

describe("the redeploy's read-only Node", () => {
  it("can read the project", async () => {
    const run = await runReadOnly(
      `process.stdout.write(String(require("node:fs").readFileSync("package.json", "utf8").includes("edge-agent")))`,
    );
    expect(run).toMatchObject({ code: 0, output: "true" });
  });

  it("cannot write a file", async () => {
    const marker = path.join(tmpdir(), `read-only-${crypto.randomUUID()}`);
    const run = await runReadOnly(`require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x")`);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("ERR_ACCESS_DENIED");
    expect(existsSync(marker)).toBe(false);
  });

  it("cannot start a child process", async () => {
    const run = await runReadOnly(`require("node:child_process").execSync("true")`);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("ERR_ACCESS_DENIED");
  });
});
