/**
 * The guardrail registry generator: a guardrail file that cannot load fails the build with a message
 * naming it (under `npm start` it is written as broken, which refuses every message); the shipped example
 * loads once copied into a guardrails folder, and refuses what looks like a secret key.
 */
import { spawnSync } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { checkGuardrailFiles } from "../../scripts/generate-guardrails.ts";
import { PROJECT_ROOT } from "../../scripts/tool-check/bundle-tools.ts";

const dir = await mkdtemp(path.join(tmpdir(), "guardrails-test-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

const SCRIPT = path.join(PROJECT_ROOT, "scripts", "generate-guardrails.ts");
function generate(folder: string, out: string, env: Record<string, string> = {}): { code: number | null; output: string } {
  const run = spawnSync(
    process.execPath,
    ["--experimental-transform-types", "--disable-warning=ExperimentalWarning", SCRIPT, "--dir", folder, "--out", out],
    { encoding: "utf8", env: { ...process.env, WRANGLER_COMMAND: "", ...env } },
  );
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("guardrails/*.ts at build time", () => {
  it("loads the example guardrail, which refuses an answer with what looks like a key", async () => {
    // The example imports ../src: it is copied one level below the root, as guardrails/ is.
    const flat = await mkdtemp(path.join(PROJECT_ROOT, ".guardrails-example-"));
    try {
      await copyFile(path.join(PROJECT_ROOT, "examples", "guardrails", "noSecretKeys.ts"), path.join(flat, "noSecretKeys.ts"));
      const outcome = await checkGuardrailFiles(flat);
      expect(outcome.errors).toEqual([]);
      expect(outcome.guardrails.map((g) => g.name)).toEqual(["noSecretKeys"]);
      const { getGuardrail } = (await import(pathToFileURL(path.join(flat, "noSecretKeys.ts")).href)) as {
        getGuardrail: () => { stage: string; check: (text: string) => { tripwire: boolean } };
      };
      const guardrail = getGuardrail();
      expect(guardrail.stage).toBe("output");
      expect(guardrail.check("Your key is sk-proj-abcdefghijklmnopqrstuvwxyz012345").tripwire).toBe(true);
      expect(guardrail.check("-----BEGIN RSA PRIVATE KEY-----").tripwire).toBe(true);
      expect(guardrail.check("The weather in Paris is mild.").tripwire).toBe(false);
    } finally {
      await rm(flat, { recursive: true, force: true });
    }
  });

  it("fails the build naming a file that cannot load", async () => {
    const folder = await mkdtemp(path.join(dir, "broken-"));
    await writeFile(path.join(folder, "brokenCheck.ts"), "export function getGuardrail( {\n");
    await writeFile(
      path.join(folder, "wrongName.ts"),
      'export const getGuardrail = () => ({ name: "other", stage: "input", check: () => ({ tripwire: false }) });\n',
    );
    const out = path.join(folder, "registry.generated.ts");
    const { code, output } = generate(folder, out);
    expect(code).toBe(1);
    expect(output).toContain("brokenCheck.ts");
    expect(output).toContain("wrongName.ts");
  });

  it("under npm start writes the broken file into the registry, so every message is refused naming it", async () => {
    const folder = await mkdtemp(path.join(dir, "dev-"));
    await writeFile(path.join(folder, "brokenCheck.ts"), "throw new Error('no config');\nexport function getGuardrail() {}\n");
    const out = path.join(folder, "registry.generated.ts");
    const { code, output } = generate(folder, out, { WRANGLER_COMMAND: "dev" });
    expect(code).toBe(0);
    expect(output).toContain("brokenCheck.ts");
    const registry = await readFile(out, "utf8");
    expect(registry).toContain("brokenCheck.ts");
    expect(registry).toContain("no config");
  });
});
