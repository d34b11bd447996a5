/**
 * Checks one written tool in isolation before it may enter tools/: its source matches the index hash and
 * carries the writeTool marker, its name is free, then, staged alone in a folder beside tools/, it bundles,
 * loads and passes the tool file contract (generate-registry's checkTools: getTool() is called, execute is
 * not) and typechecks with the project's tsconfig. Returns `{ ok: true }` or `{ ok: false, error }`.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { checkTools } from "../generate-registry.mjs";

// Mirrors WRITTEN_TOOL_MARKER in src/tools/written/render.ts.
export const WRITTEN_TOOL_MARKER = "// Written by writeTool";
export const STAGING_DIR = ".redeploy-staging";
/** Compiler output kept in an index row: enough to fix the tool, small enough for KV and a listTools line. */
const MAX_ERROR_CHARS = 4_000;

export const sha256Hex = (text) => createHash("sha256").update(text).digest("hex");

/** Whether tools/<name>.ts may be (over)written: absent, or itself a written tool. */
export async function nameIsFree(toolsDir, name) {
  const files = await readdir(toolsDir).catch(() => []);
  const clash = files.find((f) => f.endsWith(".ts") && f.slice(0, -3).toLowerCase() === name.toLowerCase());
  if (!clash) return { ok: true };
  if (clash !== `${name}.ts`) return { ok: false, error: `tools/${clash} differs from "${name}" only in case` };
  const current = await readFile(path.join(toolsDir, clash), "utf8");
  if (current.startsWith(WRITTEN_TOOL_MARKER)) return { ok: true };
  return { ok: false, error: `tools/${name}.ts is a hand-written tool; a written tool may not replace it` };
}

function typecheck(root, stagingDir, file) {
  return new Promise((resolve) => {
    const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
    execFile(process.execPath, [tsc, "-p", path.join(stagingDir, "tsconfig.json"), "--pretty", "false"], { cwd: root, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve(err ? (stdout || stderr || err.message).trim() : undefined);
    });
  });
}

const clip = (text) => (text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text);

/** Runs every check on `source` as tools/<name>.ts; the staging folder is removed afterwards. */
export async function checkWrittenTool({ root, entry, source }) {
  if (source === null || source === undefined) return { ok: false, error: `source ${entry.sourceKey} is missing from R2` };
  if (sha256Hex(source) !== entry.hash) return { ok: false, error: `source ${entry.sourceKey} does not match the index hash` };
  if (!source.startsWith(WRITTEN_TOOL_MARKER)) return { ok: false, error: "source was not rendered by writeTool (no marker line)" };
  const free = await nameIsFree(path.join(root, "tools"), entry.name);
  if (!free.ok) return free;

  // Beside tools/, so the file's `../src/...` imports resolve exactly as they will from tools/.
  const stagingDir = path.join(root, STAGING_DIR);
  await rm(stagingDir, { recursive: true, force: true });
  await mkdir(stagingDir, { recursive: true });
  const file = `${entry.name}.ts`;
  try {
    await writeFile(path.join(stagingDir, file), source);
    await writeFile(path.join(stagingDir, "tsconfig.json"), JSON.stringify({ extends: "../tsconfig.json", include: [], files: [file] }));
    const { errors } = await checkTools(stagingDir);
    const asTools = (text) => text.split(`${STAGING_DIR}/`).join("tools/").split(`${stagingDir}/`).join("tools/");
    if (errors.length) return { ok: false, error: clip(asTools(errors.join("\n"))) };
    const typeErrors = await typecheck(root, stagingDir, file);
    if (typeErrors) return { ok: false, error: clip(asTools(typeErrors)) };
    return { ok: true };
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}
