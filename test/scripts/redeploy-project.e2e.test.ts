/**
 * scripts/redeploy.ts judges the written tool alone: in a project copy whose hand-written tool has a
 * strict-mode type error (which `npm start` never reports: wrangler bundles without typechecking), a
 * pending written tool is neither rejected nor shipped, and the run says the project is broken.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitWrittenTool, indexKey, type ToolIndexEnv } from "../../src/tools/written/tool-index.ts";
import type { WrittenToolEntry } from "../../src/tools/written/spec.ts";
import { copyProject, plainToolSource, type TempProject } from "../support/temp-project.ts";

/** Loads and runs, but `xs[0]` is possibly undefined under noUncheckedIndexedAccess (TS2532). */
const STRICT_BROKEN_TOOL = plainToolSource("handMade").replace(
  "execute: () => ({",
  "execute: () => ({ n: ((xs: number[]) => xs[0] + 1)([1]),",
);

let project: TempProject;
let run: { code: number; output: string };
let row: WrittenToolEntry | null = null;

async function withIndex<T>(fn: (env: ToolIndexEnv) => Promise<T>): Promise<T> {
  const state = path.join(project.root, ".wrangler", "state", "v3");
  const proxy = await getPlatformProxy<ToolIndexEnv>({
    configPath: path.join(project.root, "wrangler.toml"),
    persist: { path: state },
    remoteBindings: false,
  });
  try {
    return await fn(proxy.env);
  } finally {
    await proxy.dispose();
  }
}

beforeAll(async () => {
  project = await copyProject({ tools: { "handMade.ts": STRICT_BROKEN_TOOL } });
  const spec = {
    name: "goodAdder",
    label: "Add",
    description: "Adds one.",
    inputSchema: { type: "object", properties: { a: { type: "number" } } },
    executeCode: "return String(args.a + 1);",
    parallel: false,
  };
  await withIndex((env) => commitWrittenTool(env, spec, { sessionId: "test" }, new Date()));
  run = await new Promise((resolve) => {
    const node = path.join(project.root, "node_modules", ".bin", "node");
    const args = [
      "--experimental-transform-types",
      "--disable-warning=ExperimentalWarning",
      path.join(project.root, "scripts", "redeploy.ts"),
      "--local",
      "--yes",
    ];
    execFile(node, args, { cwd: project.root }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, output: `${stdout}${stderr}` }));
  });
  row = await withIndex(async (env) => JSON.parse((await env.TOOL_INDEX.get(indexKey("goodAdder"))) ?? "null") as WrittenToolEntry | null);
}, 240_000);

afterAll(async () => {
  await project?.remove();
});

describe("npm run redeploy in a project that does not typecheck by itself", () => {
  it("reports the project as broken, naming the hand-written file, and exits non-zero", () => {
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain("the project does not typecheck without any written tool, so no tool was judged");
    expect(run.output).toMatch(/tools\/handMade\.ts\(\d+,\d+\): error TS2532: Object is possibly .undefined./);
    expect(run.output).toContain("━━ goodAdder v1 — NOT JUDGED: the project itself is broken");
  });

  it("rejects nothing and ships nothing", () => {
    expect(row).toMatchObject({ status: "pending", version: 1 });
    expect(row?.error).toBeUndefined();
    expect(run.output).not.toMatch(/goodAdder v1: rejected/);
    expect(existsSync(path.join(project.root, "tools", "goodAdder.ts"))).toBe(false);
  });
});
