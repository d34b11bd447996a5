/**
 * Checks written tools before they may enter tools/, each in an order where nothing of it runs before a
 * real parser has read it: the source matches the index hash and carries the writeTool marker; its name is
 * free; it is exactly the rendering of its stored spec; the TypeScript parser finds every body inside its
 * function (structure-check.ts); tsc typechecks it under Node's permission model (read only, no child
 * processes); then it is bundled and loaded in workerd, where getTool() must pass the tool file contract
 * (execute is never called). Stops at a tool's first failing check; every check run is reported. The
 * typecheck and the load run once for all the tools that reach them (one tsc, one workerd).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { renderToolSource, WRITTEN_TOOL_MARKER } from "../../src/tools/written/render.ts";
import type { WrittenToolEntry, WrittenToolSpec } from "../../src/tools/written/spec.ts";
import { sha256Hex } from "../../src/tools/written/tool-index.ts";
import { bundleTools } from "../tool-check/bundle-tools.ts";
import { checkModulesInWorkerd } from "../tool-check/workerd-load.ts";
import { findRefusedCharacters } from "./control-chars.ts";
import { checkRenderedStructure } from "./structure-check.ts";

export const STAGING_DIR = ".redeploy-staging";
/** Compiler output kept in an index row: enough to fix the tool, small enough for KV and a listTools line. */
const MAX_ERROR_CHARS = 4_000;

export type CheckStep = { check: string; ok: boolean; detail?: string };
/**
 * `blame` says whose fault a failure is: "tool" rejects the written tool; "project" means a file it does
 * not own (a hand-written tool, src/) fails to typecheck, so no verdict on the tool is possible.
 */
export type ToolCheckReport =
  | { ok: true; steps: CheckStep[] }
  | { ok: false; steps: CheckStep[]; error: string; blame: "tool" | "project" };
export type ToolUnderCheck = { entry: WrittenToolEntry; source: string | null; spec: WrittenToolSpec | null };

const clip = (text: string) => (text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text);

/**
 * Groups tsc's output by file: the diagnostics of each of `files` (relative to the project, as tsc prints
 * them) and the rest. A diagnostic starts a line with `path(line,col): error`; continuation lines stay with it.
 */
export function groupDiagnostics(output: string, files: readonly string[]): { byFile: Map<string, string[]>; others: string[] } {
  const byFile = new Map(files.map((f) => [path.normalize(f), [] as string[]]));
  const others: string[] = [];
  let current: string[] | undefined;
  for (const line of output.split("\n")) {
    const start = /^(\S[^(]*)\(\d+,\d+\): /.exec(line);
    if (start) current = byFile.get(path.normalize(start[1]!)) ?? others;
    (current ?? others).push(line);
  }
  return { byFile: new Map([...byFile].filter(([, lines]) => lines.length > 0)), others };
}

/** Whether tools/<name>.ts may be (over)written: absent, or itself a written tool. */
export async function nameIsFree(toolsDir: string, name: string): Promise<string | undefined> {
  const files = await readdir(toolsDir).catch(() => [] as string[]);
  const clash = files.find((f) => f.endsWith(".ts") && f.slice(0, -3).toLowerCase() === name.toLowerCase());
  if (!clash) return undefined;
  if (clash !== `${name}.ts`) return `tools/${clash} differs from "${name}" only in case`;
  const current = await readFile(path.join(toolsDir, clash), "utf8");
  return current.startsWith(WRITTEN_TOOL_MARKER) ? undefined : `tools/${name}.ts is a hand-written tool; a written tool may not replace it`;
}

/**
 * Node's flags for a process that may read `root` (and its node_modules, wherever that links to) and
 * nothing else: no writes, no child processes, no workers, no native addons (Node's permission model).
 */
export async function readOnlyNodeFlags(root: string): Promise<string[]> {
  const [realRoot, modules] = await Promise.all([realpath(root), realpath(path.join(root, "node_modules"))]);
  return ["--permission", `--allow-fs-read=${realRoot}`, `--allow-fs-read=${modules}`];
}

/** tsc on the staged file, under readOnlyNodeFlags: tsc only reads; a file that tried more could not. */
async function typecheck(root: string, tsconfig: string): Promise<string | undefined> {
  const flags = await readOnlyNodeFlags(root);
  const tsc = path.join(await realpath(path.join(root, "node_modules")), "typescript", "bin", "tsc");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...flags, tsc, "-p", tsconfig, "--pretty", "false"],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve(err ? (stdout || stderr || err.message).trim() : undefined);
      },
    );
  });
}

/** Bundles the staged files and loads them in one workerd (no bindings, no network); each name's problems. */
async function smokeLoad(files: readonly { file: string; name: string }[]): Promise<Map<string, string[]>> {
  const outDir = await mkdtemp(path.join(tmpdir(), "redeploy-load-"));
  try {
    const bundled = await bundleTools(
      files.map((f) => f.file),
      outDir,
    );
    const checks = files.filter((f) => bundled.entries.has(f.file)).map((f) => ({ name: f.name, module: bundled.entries.get(f.file)! }));
    const loaded = await checkModulesInWorkerd(outDir, checks);
    return new Map(files.map((f) => [f.name, bundled.errors.get(f.file) ?? loaded.get(f.name) ?? []]));
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** One tool's report as it is built: `fail` ends it (later checks are skipped), `pass` records a step. */
class Checking {
  readonly steps: CheckStep[] = [];
  report: ToolCheckReport | undefined;
  constructor(readonly tool: ToolUnderCheck) {}
  fail(check: string, error: string, blame: "tool" | "project" = "tool"): void {
    this.steps.push({ check, ok: false, detail: clip(error) });
    this.report = { ok: false, steps: this.steps, error: clip(error), blame };
  }
  pass(check: string, detail?: string): void {
    this.steps.push(detail ? { check, ok: true, detail } : { check, ok: true });
  }
}

/** The checks that only read the source: integrity, characters, name, template, parse. */
async function checkSource(root: string, c: Checking): Promise<void> {
  const { entry, source, spec } = c.tool;
  if (source === null) return c.fail("integrity", `source ${entry.sourceKey} is missing from R2`);
  if ((await sha256Hex(source)) !== entry.hash) return c.fail("integrity", `source ${entry.sourceKey} does not match the index hash`);
  if (!source.startsWith(WRITTEN_TOOL_MARKER)) return c.fail("integrity", "source was not rendered by writeTool (no marker line)");
  c.pass("integrity", "sha256 matches the index row; writeTool marker present");
  const refused = findRefusedCharacters(source);
  if (refused.length) return c.fail("characters", refused.join("\n"));
  c.pass("characters", "no control or bidirectional-override characters");
  const taken = await nameIsFree(path.join(root, "tools"), entry.name);
  if (taken) return c.fail("name", taken);
  c.pass("name", `tools/${entry.name}.ts is free or a written tool`);

  const meta = { version: entry.version, author: entry.author, writtenAt: entry.writtenAt };
  if (!spec || spec.name !== entry.name) return c.fail("template", `spec ${entry.specKey} is missing from R2 or names another tool`);
  if (renderToolSource(spec, meta).code !== source) return c.fail("template", "source is not the rendering of its stored spec");
  c.pass("template", "source is exactly the template rendered from its spec");
  const structure = checkRenderedStructure(source, spec, meta);
  if (structure.length) return c.fail("parse", structure.join("\n"));
  c.pass("parse", "TypeScript parser: top-level statements are the template's; every body stays inside its function");
}

/**
 * Runs every check on each source as tools/<name>.ts, one report per tool in the given order. The source
 * checks run per tool; the tools that pass them are typechecked by one tsc run and loaded in one workerd
 * (each judged by its own diagnostics and load result). The staging folder is removed afterwards.
 */
export async function checkWrittenTools(root: string, tools: readonly ToolUnderCheck[]): Promise<ToolCheckReport[]> {
  const all = tools.map((tool) => new Checking(tool));
  for (const c of all) await checkSource(root, c);
  const staged = all.filter((c) => c.report === undefined);
  if (staged.length > 0) await checkStaged(root, staged);
  return all.map((c) => c.report ?? { ok: true, steps: c.steps });
}

async function checkStaged(root: string, staged: readonly Checking[]): Promise<void> {
  // Beside tools/, so each file's `../src/...` imports resolve exactly as they will from tools/.
  const stagingDir = path.join(root, STAGING_DIR);
  const fileOf = (c: Checking) => `${c.tool.entry.name}.ts`;
  const asTools = (text: string) => text.split(`${STAGING_DIR}/`).join("tools/").split(`${stagingDir}/`).join("tools/");
  await rm(stagingDir, { recursive: true, force: true });
  await mkdir(stagingDir, { recursive: true });
  try {
    for (const c of staged) await writeFile(path.join(stagingDir, fileOf(c)), c.tool.source!);
    // The Workers runtime's types (the tools run there), not Node's: also the faster check.
    const tsconfig = {
      extends: "../tsconfig.json",
      compilerOptions: { types: [] },
      include: [],
      files: [...staged.map(fileOf), "../worker-configuration.d.ts"],
    };
    await writeFile(path.join(stagingDir, "tsconfig.json"), JSON.stringify(tsconfig));
    const typeErrors = await typecheck(root, path.join(stagingDir, "tsconfig.json"));
    if (typeErrors) {
      // tsc also reads what the tools' types import (worker-configuration.d.ts reaches the whole app and
      // so every tool of the registry): only a tool's own diagnostics judge it.
      const { byFile, others } = groupDiagnostics(
        typeErrors,
        staged.map((c) => path.join(STAGING_DIR, fileOf(c))),
      );
      for (const c of staged) {
        const own = byFile.get(path.normalize(path.join(STAGING_DIR, fileOf(c))));
        if (own) c.fail("typecheck", asTools(own.join("\n")));
        else if (others.some((line) => line.trim() !== "")) {
          c.fail(
            "typecheck",
            `the project itself does not typecheck (not this tool's fault; \`npx tsc --noEmit\` shows it):\n${others.join("\n")}`,
            "project",
          );
        }
      }
    }
    const typed = staged.filter((c) => c.report === undefined);
    for (const c of typed) c.pass("typecheck", "tsc (Node permission model: read-only, no child processes)");
    const loaded = typed.length
      ? await smokeLoad(typed.map((c) => ({ file: path.join(stagingDir, fileOf(c)), name: c.tool.entry.name })))
      : new Map<string, string[]>();
    for (const c of typed) {
      const problems = loaded.get(c.tool.entry.name) ?? [];
      if (problems.length) c.fail("load", problems.map((p) => `tools/${fileOf(c)}: ${p}`).join("\n"));
      else c.pass("load", "loads in workerd (no bindings, no network); getTool() passes the tool file contract");
    }
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}
