/**
 * scripts/redeploy.ts in local mode against a throwaway project copy and a fresh wrangler state dir:
 * tools are seeded through the real writer (commitWrittenTool) via getPlatformProxy, then the script runs
 * as a child process: a dry run, a run whose question is answered "n", a run with --yes, a run with
 * nothing pending, and a --no-deploy run for a second version. The state dir is the copy's
 * .wrangler/state, where `npm start` keeps it, so `--local` needs no `--persist-to`. Rows written around
 * writeTool (R2 and KV edited directly) stand for an attacker with write access to the index.
 * Each test checks one outcome.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitWrittenTool, indexKey, sha256Hex, sourceKey, specKey, type ToolIndexEnv } from "../../src/tools/written/tool-index.ts";
import { renderToolSource, WRITTEN_TOOL_MARKER } from "../../src/tools/written/render.ts";
import type { WrittenToolEntry, WrittenToolSpec } from "../../src/tools/written/spec.ts";
import { copyProject, plainToolSource, type TempProject } from "../support/temp-project.ts";

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
let toolsAfterFirst: string[] = [];
let toolsAfterDeclined: string[] = [];
let deployedFile = "";
let deployedRegistry = "";
let rowsAfterNoDeploy: Record<string, WrittenToolEntry | null> = {};
const afterDryRun: { tools: string[]; rows: Record<string, WrittenToolEntry | null> } = { tools: [], rows: {} };
let rows: Record<string, WrittenToolEntry | null> = {};

async function withIndex<T>(fn: (env: ToolIndexEnv) => Promise<T>): Promise<T> {
  const proxy = await getPlatformProxy<ToolIndexEnv>({
    configPath: path.join(project.root, "wrangler.toml"),
    persist: { path: path.join(state, "v3") },
    remoteBindings: false,
  });
  try {
    return await fn(proxy.env);
  } finally {
    await proxy.dispose();
  }
}

const NODE_TS = ["--experimental-transform-types", "--disable-warning=ExperimentalWarning"];

/** Runs the script; `answer` is what stdin says to its question (nothing: stdin ends at once). */
function redeployIn(args: string[], answer = ""): Promise<Run> {
  return new Promise((resolve) => {
    const node = path.join(project.root, "node_modules", ".bin", "node");
    const child = execFile(
      node,
      [...NODE_TS, path.join(project.root, "scripts", "redeploy.ts"), "--local", ...args],
      { cwd: project.root },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, output: `${stdout}${stderr}` });
      },
    );
    child.stdin?.end(answer);
  });
}
const redeploy = (...args: string[]) => redeployIn(args);

const PENDING = ["goodAdder", "typeBroken", "notRendered", "handMade", "escaper"] as const;
const NAMES = [...PENDING, "restorable", "tampered"] as const;
/** ESC sequences that erase the line above, hidden in a comment of an otherwise fine tool. */
const ERASE_LINES = "\u001b[1A\u001b[2K\u001b[1A\u001b[2K";
/** The review block of one tool in a run's output. */
const reviewOf = (output: string, name: string) => output.slice(output.indexOf(`━━ ${name} v`)).split("\n\n")[0]!;

/** Puts a row, its spec and `source` (default: the spec's rendering) straight into KV and R2, bypassing writeTool. */
async function putRaw(env: ToolIndexEnv, toolSpec: WrittenToolSpec, status: WrittenToolEntry["status"], source?: string): Promise<void> {
  const author = { sessionId: "raw" };
  const writtenAt = new Date().toISOString();
  const text = source ?? renderToolSource(toolSpec, { version: 1, author, writtenAt }).code;
  const name = toolSpec.name;
  const entry: WrittenToolEntry = {
    name,
    version: 1,
    hash: await sha256Hex(text),
    status,
    label: name,
    description: toolSpec.description,
    author,
    writtenAt,
    sourceKey: sourceKey(name, 1),
    specKey: specKey(name, 1),
    ...(status === "deployed" ? { deployedAt: writtenAt } : {}),
  };
  await env.TOOL_SOURCE.put(entry.sourceKey, text);
  await env.TOOL_SOURCE.put(entry.specKey, JSON.stringify(toolSpec));
  await env.TOOL_INDEX.put(indexKey(name), JSON.stringify(entry));
}
/** The copy's own tools/: one hand-written fixture, whatever the user keeps in theirs. */
const FIXTURE_TOOLS = { "handMade.ts": plainToolSource("handMade") };
const readRows = () =>
  withIndex(async (env) =>
    Object.fromEntries(
      await Promise.all(NAMES.map(async (n) => [n, JSON.parse((await env.TOOL_INDEX.get(indexKey(n))) ?? "null")] as const)),
    ),
  );
const toolFiles = async () => (await import("node:fs/promises")).readdir(path.join(project.root, "tools"));

beforeAll(async () => {
  project = await copyProject({ tools: FIXTURE_TOOLS });
  state = path.join(project.root, ".wrangler", "state");
  await withIndex(async (env) => {
    const author = { sessionId: "test" };
    await commitWrittenTool(env, spec("goodAdder", "return String(args.a + 1);"), author, new Date());
    // Plain JavaScript that parses and loads, but does not typecheck: a number has no toUpperCase.
    await commitWrittenTool(env, spec("typeBroken", "const n = 1;\nreturn n.toUpperCase();"), author, new Date());
    // A source writeTool would never render, as if R2 had been written around it: getTool() throws at load.
    const source = `${WRITTEN_TOOL_MARKER}: notRendered v1.\nexport function getTool() {\n  throw new Error("kaboom at load");\n}\n`;
    const entry: WrittenToolEntry = {
      name: "notRendered",
      version: 1,
      hash: await sha256Hex(source),
      status: "pending",
      label: "x",
      description: "x",
      author,
      writtenAt: new Date().toISOString(),
      sourceKey: sourceKey("notRendered", 1),
      specKey: specKey("notRendered", 1),
    };
    await env.TOOL_SOURCE.put(entry.sourceKey, source);
    await env.TOOL_SOURCE.put(entry.specKey, JSON.stringify(spec("notRendered", "return 1;")));
    await env.TOOL_INDEX.put(indexKey("notRendered"), JSON.stringify(entry));
    // A pending row for a hand-written tool's name (writeTool refuses it; the script must too).
    await commitWrittenTool(env, spec("handMade", "return 'not the real handMade';"), author, new Date());
    await putRaw(env, spec("escaper", `// ${ERASE_LINES}nothing to see\nreturn "fine";`), "pending");
    // Deployed rows missing from tools/ (a fresh checkout): one that passes every check, and one whose
    // stored source has the right hash and marker but is not what its spec renders (it runs at load).
    await putRaw(env, spec("restorable", "return 'restored';"), "deployed");
    await putRaw(
      env,
      spec("tampered", "return 1;"),
      "deployed",
      `${WRITTEN_TOOL_MARKER}: tampered v1.\nglobalThis.fetch = () => { throw new Error("patched"); };\nexport function getTool() { return {}; }\n`,
    );
  });
  runs.dryRun = await redeploy("--dry-run");
  afterDryRun.tools = await toolFiles();
  afterDryRun.rows = await readRows();
  runs.declined = await redeployIn([], "n\n");
  toolsAfterDeclined = await toolFiles();
  runs.first = await redeploy("--yes");
  rows = await readRows();
  toolsAfterFirst = await toolFiles();
  deployedFile = await readFile(path.join(project.root, "tools", "goodAdder.ts"), "utf8");
  deployedRegistry = await readFile(path.join(project.root, "src", "tools", "registry.generated.ts"), "utf8");
  runs.second = await redeploy("--yes");
  await withIndex((env) => commitWrittenTool(env, spec("goodAdder", "return String(args.a + 100);"), { sessionId: "test" }, new Date()));
  runs.noDeploy = await redeploy("--no-deploy", "--yes");
  rowsAfterNoDeploy = await readRows();
}, 240_000);

afterAll(async () => {
  await project?.remove();
});

describe("npm run redeploy --local", () => {
  it("in a dry run checks everything but changes neither tools/ nor the index", () => {
    expect(runs.dryRun.code).toBe(0);
    expect(runs.dryRun.output, runs.dryRun.output).toContain(
      "dry run OK: 1 tool(s) would be deployed; tools/ is restored and no row was changed",
    );
    expect(afterDryRun.tools.sort()).toEqual(Object.keys(FIXTURE_TOOLS));
    expect(PENDING.map((n) => afterDryRun.rows[n]?.status)).toEqual(PENDING.map(() => "pending"));
  });

  it("in a dry run says what it would reject, not that it rejected", () => {
    expect(runs.dryRun.output).toContain("typeBroken v1: would reject");
    expect(reviewOf(runs.dryRun.output, "typeBroken")).toContain("WOULD BE REJECTED (dry run: nothing recorded)");
    expect(runs.dryRun.output).not.toMatch(/: rejected$|— REJECTED/m);
  });

  it("prints none of wrangler's warnings about Durable Objects or AI bindings it does not use", () => {
    expect(runs.dryRun.output).not.toMatch(/Durable Object|AI bindings/);
  });

  it("prints each pending tool's source and the result of every check before asking", () => {
    expect(runs.declined.output).toContain("━━ goodAdder v1 — checks passed (written by session test");
    expect(runs.declined.output).toMatch(/✓ parse: TypeScript parser: top-level statements are the template's/);
    expect(runs.declined.output).toMatch(/✓ typecheck: tsc \(Node permission model/);
    expect(runs.declined.output).toMatch(/✓ load: loads in workerd/);
    expect(runs.declined.output).toMatch(/\d+ │ return String\(args\.a \+ 1\);/);
    expect(runs.declined.output).toContain("diff: no deployed version in tools/ (a new tool)");
    expect(runs.declined.output).toMatch(/Ship 1 tool\(s\): goodAdder v1 .*\? \[y\/N\]/);
  });

  it("ships nothing when the question is not answered yes", () => {
    expect(runs.declined.code).toBe(1);
    expect(runs.declined.output).toContain("not confirmed: nothing was shipped");
    expect(toolsAfterDeclined.sort()).toEqual(Object.keys(FIXTURE_TOOLS));
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
    expect(rows.typeBroken!.error).toMatch(
      /^tools\/typeBroken\.ts\(\d+,\d+\): error TS2339: Property 'toUpperCase' does not exist on type '1'/,
    );
    expect(existsSync(path.join(project.root, "tools", "typeBroken.ts"))).toBe(false);
  });

  it("rejects a source that is not the rendering of its stored spec, before anything loads it", () => {
    expect(rows.notRendered).toMatchObject({ status: "rejected", error: "source is not the rendering of its stored spec" });
    expect(existsSync(path.join(project.root, "tools", "notRendered.ts"))).toBe(false);
  });

  it("refuses a source with terminal escapes and prints them escaped in the review", () => {
    expect(rows.escaper).toMatchObject({ status: "rejected" });
    expect(rows.escaper!.error).toMatch(/^line \d+, column \d+: U\+001B \(a control or bidirectional-override character\)/);
    const review = reviewOf(runs.declined.output, "escaper");
    expect(review).toContain("✗ characters");
    expect(review).toContain("// \\u{1B}[1A\\u{1B}[2K");
    expect(runs.declined.output).not.toContain("\u001b");
  });

  it("restores a deployed tool missing from tools/ only after every check, and shows it in the review", async () => {
    expect(reviewOf(runs.declined.output, "restorable")).toMatch(
      /^━━ restorable v1 \(deployed, missing from tools\/: restored from R2\) — checks passed/,
    );
    expect(reviewOf(runs.declined.output, "restorable")).toMatch(/\d+ │ return 'restored';/);
    expect(runs.declined.output).toContain("Ship 1 tool(s): goodAdder v1 (and restore restorable v1)? [y/N]");
    expect(toolsAfterFirst).toContain("restorable.ts");
    expect(rows.restorable).toMatchObject({ status: "deployed" });
  });

  it("never restores a deployed row whose stored source fails a check, even with a matching hash", () => {
    expect(reviewOf(runs.first.output, "tampered")).toMatch(
      /^━━ tampered v1 \(deployed, missing from tools\/: restored from R2\) — NOT RESTORED/,
    );
    expect(reviewOf(runs.first.output, "tampered")).toContain("✗ template");
    expect(runs.first.output).toContain(
      "tampered v1: deployed, but its stored source fails the checks; it will be missing from this deploy",
    );
    expect(toolsAfterFirst).not.toContain("tampered.ts");
  });

  it("never replaces a hand-written tool", async () => {
    expect(rows.handMade).toMatchObject({
      status: "rejected",
      error: "tools/handMade.ts is a hand-written tool; a written tool may not replace it",
    });
    expect(await readFile(path.join(project.root, "tools", "handMade.ts"), "utf8")).toBe(FIXTURE_TOOLS["handMade.ts"]);
  });

  it("does nothing when run again", () => {
    expect(runs.second.code).toBe(0);
    expect(runs.second.output).toContain(`nothing to redeploy (${NAMES.length} written tool(s), none pending)`);
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
    const proxy = await getPlatformProxy<ToolIndexEnv>({
      configPath: path.join(project.root, "wrangler.toml"),
      persist: { path: path.join(cliState, "v3") },
      remoteBindings: false,
    });
    try {
      await commitWrittenTool(proxy.env, spec("cliAdder", "return String(args.a + 2);"), { sessionId: "test" }, new Date());
    } finally {
      await proxy.dispose();
    }
    run = await new Promise<Run>((resolve) => {
      const node = path.join(project.root, "node_modules", ".bin", "node");
      const args = [
        ...NODE_TS,
        path.join(project.root, "scripts", "redeploy.ts"),
        "--local",
        "--persist-to",
        cliState,
        "--index-via",
        "cli",
        "--yes",
      ];
      execFile(node, args, { cwd: project.root }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, output: `${stdout}${stderr}` }));
    });
    const after = await getPlatformProxy<ToolIndexEnv>({
      configPath: path.join(project.root, "wrangler.toml"),
      persist: { path: path.join(cliState, "v3") },
      remoteBindings: false,
    });
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
