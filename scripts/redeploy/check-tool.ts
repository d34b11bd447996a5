/**
 * Checks one written tool before it may enter tools/, in an order where nothing of it runs before a real
 * parser has read it: the source matches the index hash and carries the writeTool marker; its name is
 * free; it is exactly the rendering of its stored spec; the TypeScript parser finds every body inside its
 * function (structure-check.ts); tsc typechecks it under Node's permission model (read only, no child
 * processes); then it is bundled and loaded in workerd, where getTool() must pass the tool file contract
 * (execute is never called). Stops at the first failing check; every check run is reported.
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
export type ToolCheckReport = { ok: true; steps: CheckStep[] } | { ok: false; steps: CheckStep[]; error: string; blame: "tool" | "project" };
export type ToolUnderCheck = { root: string; entry: WrittenToolEntry; source: string | null; spec: WrittenToolSpec | null };

const clip = (text: string) => (text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text);

/**
 * Splits tsc's output into the diagnostics of `file` (relative to the project, as tsc prints it) and the
 * rest. A diagnostic starts a line with `path(line,col): error`; its continuation lines stay with it.
 */
export function splitDiagnostics(output: string, file: string): { own: string[]; others: string[] } {
  const own: string[] = [];
  const others: string[] = [];
  let current: string[] | undefined;
  for (const line of output.split("\n")) {
    const start = /^(\S[^(]*)\(\d+,\d+\): /.exec(line);
    if (start) current = path.normalize(start[1]!) === path.normalize(file) ? own : others;
    (current ?? others).push(line);
  }
  return { own, others };
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
    execFile(process.execPath, [...flags, tsc, "-p", tsconfig, "--pretty", "false"], { cwd: root, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve(err ? (stdout || stderr || err.message).trim() : undefined);
    });
  });
}

/** Bundles the staged file and loads it in workerd (no bindings, no network); returns its problems. */
async function smokeLoad(file: string, name: string): Promise<string[]> {
  const outDir = await mkdtemp(path.join(tmpdir(), "redeploy-load-"));
  try {
    const bundled = await bundleTools([file], outDir);
    const errors = bundled.errors.get(file);
    if (errors) return errors;
    const loaded = await checkModulesInWorkerd(outDir, [{ name, module: bundled.entries.get(file)! }]);
    return loaded.get(name) ?? [];
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** Runs every check on `source` as tools/<name>.ts; the staging folder is removed afterwards. */
export async function checkWrittenTool({ root, entry, source, spec }: ToolUnderCheck): Promise<ToolCheckReport> {
  const steps: CheckStep[] = [];
  const fail = (check: string, error: string, blame: "tool" | "project" = "tool"): ToolCheckReport => {
    steps.push({ check, ok: false, detail: clip(error) });
    return { ok: false, steps, error: clip(error), blame };
  };
  const pass = (check: string, detail?: string) => steps.push(detail ? { check, ok: true, detail } : { check, ok: true });

  if (source === null) return fail("integrity", `source ${entry.sourceKey} is missing from R2`);
  if ((await sha256Hex(source)) !== entry.hash) return fail("integrity", `source ${entry.sourceKey} does not match the index hash`);
  if (!source.startsWith(WRITTEN_TOOL_MARKER)) return fail("integrity", "source was not rendered by writeTool (no marker line)");
  pass("integrity", "sha256 matches the index row; writeTool marker present");
  const refused = findRefusedCharacters(source);
  if (refused.length) return fail("characters", refused.join("\n"));
  pass("characters", "no control or bidirectional-override characters");
  const taken = await nameIsFree(path.join(root, "tools"), entry.name);
  if (taken) return fail("name", taken);
  pass("name", `tools/${entry.name}.ts is free or a written tool`);

  const meta = { version: entry.version, author: entry.author, writtenAt: entry.writtenAt };
  if (!spec || spec.name !== entry.name) return fail("template", `spec ${entry.specKey} is missing from R2 or names another tool`);
  if (renderToolSource(spec, meta).code !== source) return fail("template", "source is not the rendering of its stored spec");
  pass("template", "source is exactly the template rendered from its spec");
  const structure = checkRenderedStructure(source, spec, meta);
  if (structure.length) return fail("parse", structure.join("\n"));
  pass("parse", "TypeScript parser: top-level statements are the template's; every body stays inside its function");

  // Beside tools/, so the file's `../src/...` imports resolve exactly as they will from tools/.
  const stagingDir = path.join(root, STAGING_DIR);
  const file = `${entry.name}.ts`;
  const asTools = (text: string) => text.split(`${STAGING_DIR}/`).join("tools/").split(`${stagingDir}/`).join("tools/");
  await rm(stagingDir, { recursive: true, force: true });
  await mkdir(stagingDir, { recursive: true });
  try {
    await writeFile(path.join(stagingDir, file), source);
    // The Workers runtime's types (the tool runs there), not Node's: also the faster check.
    const tsconfig = { extends: "../tsconfig.json", compilerOptions: { types: [] }, include: [], files: [file, "../worker-configuration.d.ts"] };
    await writeFile(path.join(stagingDir, "tsconfig.json"), JSON.stringify(tsconfig));
    const typeErrors = await typecheck(root, path.join(stagingDir, "tsconfig.json"));
    if (typeErrors) {
      // tsc also reads what the tool's types import (worker-configuration.d.ts reaches the whole app and
      // so every tool of the registry): only the tool's own diagnostics judge it.
      const { own, others } = splitDiagnostics(typeErrors, path.join(STAGING_DIR, file));
      if (own.length) return fail("typecheck", asTools(own.join("\n")));
      return fail("typecheck", `the project itself does not typecheck (not this tool's fault; \`npx tsc --noEmit\` shows it):\n${others.join("\n")}`, "project");
    }
    pass("typecheck", "tsc (Node permission model: read-only, no child processes)");
    const loadProblems = await smokeLoad(path.join(stagingDir, file), entry.name);
    if (loadProblems.length) return fail("load", loadProblems.map((p) => `tools/${file}: ${p}`).join("\n"));
    pass("load", "loads in workerd (no bindings, no network); getTool() passes the tool file contract");
    return { ok: true, steps };
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}
