/**
 * scripts/redeploy.ts in local mode against a throwaway project copy and a fresh wrangler state dir:
 * tools are seeded through the real writer (commitWrittenTool) via getPlatformProxy, then the script runs
 * as a child process: a dry run, a run whose question is answered "n", a run with --yes, a run with
 * nothing pending, and a --no-deploy run for a second version. Each test checks one outcome.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitWrittenTool, indexKey, sha256Hex, sourceKey, specKey, type ToolIndexEnv } from "../../src/tools/written/tool-index.ts";
import { WRITTEN_TOOL_MARKER } from "../../src/tools/written/render.ts";
import type { WrittenToolEntry, WrittenToolSpec } from "../../src/tools/written/spec.ts";
import { copyProject, type TempProject } from "../support/temp-project.ts";

type Run = { code: number; output: string };

const spec = (name: string, executeCode: string): WrittenToolSpec => ({
  name,
  label: name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object", properties: { a: { type: "number" } } },
  executeCode,
  parallel: false,
});

let project: TempProject;
let state: string;
const runs: Record<"dryRun" | "declined" | "first" | "second" | "noDeploy", Run> = {} as never;
let toolsAfterDeclined: string[] = [];
let deployedFile = "";
let deployedRegistry = "";
let rowsAfterNoDeploy: Record<string, WrittenToolEntry | null> = {};
const afterDryRun: { tools: string[]; rows: Record<string, WrittenToolEntry | null> } = { tools: [], rows: {} };
let rows: Record<string, WrittenToolEntry | null> = {};

async function withIndex<T>(fn: (env: ToolIndexEnv) => Promise<T>): Promise<T> {
  const proxy = await getPlatformProxy<ToolIndexEnv>({ configPath: path.join(project.root, "wrangler.toml"), persist: { path: path.join(state, "v3") }, remoteBindings: false });
  try {
    return await fn(proxy.env);
  } finally {
    await proxy.dispose();
  }
}

const NODE_TS = ["--experimental-transform-types", "--disable-warning=ExperimentalWarning"];

/** Runs the script; `answer` is what stdin says to its question (nothing: stdin ends at once). */
function redeployIn(persistTo: string, args: string[], answer = ""): Promise<Run> {
  return new Promise((resolve) => {
    const node = path.join(project.root, "node_modules", ".bin", "node");
    const child = execFile(node, [...NODE_TS, path.join(project.root, "scripts", "redeploy.ts"), "--local", "--persist-to", persistTo, ...args], { cwd: project.root }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
    child.stdin?.end(answer);
  });
}
const redeploy = (...args: string[]) => redeployIn(state, args);

const NAMES = ["goodAdder", "typeBroken", "notRendered", "getTime"] as const;
const readRows = () =>
  withIndex(async (env) =>
    Object.fromEntries(await Promise.all(NAMES.map(async (n) => [n, JSON.parse((await env.TOOL_INDEX.get(indexKey(n))) ?? "null")] as const))),
  );
const toolFiles = async () => (await import("node:fs/promises")).readdir(path.join(project.root, "tools"));

beforeAll(async () => {
  project = await copyProject();
  state = await mkdtemp(path.join(tmpdir(), "redeploy-state-"));
  await withIndex(async (env) => {
    const author = { sessionId: "test" };
    await commitWrittenTool(env, spec("goodAdder", "return String(args.a + 1);"), author, new Date());
    // Plain JavaScript that parses and loads, but does not typecheck: a number has no toUpperCase.
    await commitWrittenTool(env, spec("typeBroken", "const n = 1;\nreturn n.toUpperCase();"), author, new Date());
    // A source writeTool would never render, as if R2 had been written around it: getTool() throws at load.
    const source = `${WRITTEN_TOOL_MARKER}: notRendered v1.\nexport function getTool() {\n  throw new Error("kaboom at load");\n}\n`;
    const entry: WrittenToolEntry = {
      name: "notRendered", version: 1, hash: await sha256Hex(source), status: "pending", label: "x", description: "x",
      author, writtenAt: new Date().toISOString(), sourceKey: sourceKey("notRendered", 1), specKey: specKey("notRendered", 1),
    };
    await env.TOOL_SOURCE.put(entry.sourceKey, source);
    await env.TOOL_SOURCE.put(entry.specKey, JSON.stringify(spec("notRendered", "return 1;")));
    await env.TOOL_INDEX.put(indexKey("notRendered"), JSON.stringify(entry));
    // A pending row for a hand-written tool's name (writeTool refuses it; the script must too).
    await commitWrittenTool(env, spec("getTime", "return 'not the real getTime';"), author, new Date());
  });
  runs.dryRun = await redeploy("--dry-run");
  afterDryRun.tools = await toolFiles();
  afterDryRun.rows = await readRows();
  runs.declined = await redeployIn(state, [], "n\n");
  toolsAfterDeclined = await toolFiles();
  runs.first = await redeploy("--yes");
  rows = await readRows();
  deployedFile = await readFile(path.join(project.root, "tools", "goodAdder.ts"), "utf8");
  deployedRegistry = await readFile(path.join(project.root, "src", "tools", "registry.generated.ts"), "utf8");
  runs.second = await redeploy("--yes");
  await withIndex((env) => commitWrittenTool(env, spec("goodAdder", "return String(args.a + 100);"), { sessionId: "test" }, new Date()));
  runs.noDeploy = await redeploy("--no-deploy", "--yes");
  rowsAfterNoDeploy = await readRows();
}, 240_000);

afterAll(async () => {
  await project?.remove();
  if (state) await rm(state, { recursive: true, force: true });
});

describe("npm run redeploy --local", () => {
  it("in a dry run checks everything but changes neither tools/ nor the index", () => {
    expect(runs.dryRun.code).toBe(0);
    expect(runs.dryRun.output, runs.dryRun.output).toContain("dry run OK: 1 tool(s) would be deployed; tools/ is restored and no row was changed");
    expect(afterDryRun.tools.sort()).toEqual(["cancelSchedule.ts", "getTime.ts", "getWeather.ts", "listSchedules.ts", "schedule.ts", "writeTool.ts"]);
    expect(Object.values(afterDryRun.rows).map((r) => r?.status)).toEqual(["pending", "pending", "pending", "pending"]);
  });

  it("prints each pending tool's source and the result of every check before asking", () => {
    expect(runs.declined.output).toContain("━━ goodAdder v1 — checks passed (written by session test");
    expect(runs.declined.output).toMatch(/✓ parse: TypeScript parser: top-level statements are the template's/);
    expect(runs.declined.output).toMatch(/✓ typecheck: tsc \(Node permission model/);
    expect(runs.declined.output).toMatch(/✓ load: loads in workerd/);
    expect(runs.declined.output).toMatch(/\d+ │ return String\(args\.a \+ 1\);/);
    expect(runs.declined.output).toContain("diff: no deployed version in tools/ (a new tool)");
    expect(runs.declined.output).toContain("Ship 1 tool(s): goodAdder v1? [y/N]");
  });

  it("ships nothing when the question is not answered yes", () => {
    expect(runs.declined.code).toBe(1);
    expect(runs.declined.output).toContain("not confirmed: nothing was shipped");
    expect(toolsAfterDeclined.sort()).toEqual(["cancelSchedule.ts", "getTime.ts", "getWeather.ts", "listSchedules.ts", "schedule.ts", "writeTool.ts"]);
  });

  it("writes a passing tool into tools/ and the regenerated registry, and marks it deployed", async () => {
    expect(runs.first.code).toBe(0);
    expect(deployedFile.startsWith(`${WRITTEN_TOOL_MARKER}: goodAdder v1.`)).toBe(true);
    expect(await sha256Hex(deployedFile)).toBe(rows.goodAdder?.hash);
    expect(deployedRegistry).toContain('import * as goodAdder from "../../tools/goodAdder.ts";');
    expect(rows.goodAdder).toMatchObject({ status: "deployed", version: 1 });
    expect(Date.parse(rows.goodAdder!.deployedAt!)).not.toBeNaN();
  });

  it("rejects a tool that does not typecheck, storing the compiler's message, and keeps it out of tools/", () => {
    expect(rows.typeBroken).toMatchObject({ status: "rejected" });
    expect(rows.typeBroken!.error).toMatch(/^tools\/typeBroken\.ts\(\d+,\d+\): error TS2339: Property 'toUpperCase' does not exist on type '1'/);
    expect(existsSync(path.join(project.root, "tools", "typeBroken.ts"))).toBe(false);
  });

  it("rejects a source that is not the rendering of its stored spec, before anything loads it", () => {
    expect(rows.notRendered).toMatchObject({ status: "rejected", error: "source is not the rendering of its stored spec" });
    expect(existsSync(path.join(project.root, "tools", "notRendered.ts"))).toBe(false);
  });

  it("never replaces a hand-written tool", async () => {
    expect(rows.getTime).toMatchObject({ status: "rejected", error: "tools/getTime.ts is a hand-written tool; a written tool may not replace it" });
    expect(await readFile(path.join(project.root, "tools", "getTime.ts"), "utf8")).not.toContain(WRITTEN_TOOL_MARKER);
  });

  it("does nothing when run again", () => {
    expect(runs.second.code).toBe(0);
    expect(runs.second.output).toContain("nothing to redeploy (4 written tool(s), none pending)");
  });

  it("shows a new version as a diff against the deployed file", () => {
    expect(runs.noDeploy.output).toContain("diff against the deployed version:");
    expect(runs.noDeploy.output).toContain("-return String(args.a + 1);");
    expect(runs.noDeploy.output).toContain("+return String(args.a + 100);");
  });

  it("with --no-deploy writes the new version into tools/ but deploys nothing and leaves the row pending", async () => {
    expect(runs.noDeploy.code, runs.noDeploy.output).toBe(0);
    expect(await readFile(path.join(project.root, "tools", "goodAdder.ts"), "utf8")).toContain("return String(args.a + 100);");
    expect(rowsAfterNoDeploy.goodAdder).toMatchObject({ status: "pending", version: 2 });
  });
});

describe("npm run redeploy through the wrangler CLI (the remote path, here with --local)", () => {
  let cliState: string;
  let run: Run;
  let row: WrittenToolEntry | null;

  beforeAll(async () => {
    cliState = await mkdtemp(path.join(tmpdir(), "redeploy-cli-state-"));
    const proxy = await getPlatformProxy<ToolIndexEnv>({ configPath: path.join(project.root, "wrangler.toml"), persist: { path: path.join(cliState, "v3") }, remoteBindings: false });
    try {
      await commitWrittenTool(proxy.env, spec("cliAdder", "return String(args.a + 2);"), { sessionId: "test" }, new Date());
    } finally {
      await proxy.dispose();
    }
    run = await new Promise<Run>((resolve) => {
      const node = path.join(project.root, "node_modules", ".bin", "node");
      const args = [...NODE_TS, path.join(project.root, "scripts", "redeploy.ts"), "--local", "--persist-to", cliState, "--index-via", "cli", "--yes"];
      execFile(node, args, { cwd: project.root }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, output: `${stdout}${stderr}` }));
    });
    const after = await getPlatformProxy<ToolIndexEnv>({ configPath: path.join(project.root, "wrangler.toml"), persist: { path: path.join(cliState, "v3") }, remoteBindings: false });
    try {
      row = JSON.parse((await after.env.TOOL_INDEX.get(indexKey("cliAdder"))) ?? "null") as WrittenToolEntry | null;
    } finally {
      await after.dispose();
    }
  }, 120_000);

  afterAll(async () => {
    if (cliState) await rm(cliState, { recursive: true, force: true });
  });

  it("reads the index and source and marks the tool deployed with the CLI's kv and r2 commands", async () => {
    expect(run.code, run.output).toBe(0);
    expect(row).toMatchObject({ name: "cliAdder", status: "deployed" });
    expect(await readFile(path.join(project.root, "tools", "cliAdder.ts"), "utf8")).toContain("return String(args.a + 2);");
  });
});
