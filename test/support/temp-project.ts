/**
 * A throwaway copy of the project for tests that run build scripts (redeploy writes tools/ and the
 * generated registry): src/, tools/, scripts/, public/, the config files and the main module's types are
 * copied, node_modules is linked. Used by test/scripts/*.e2e.test.ts and test/e2e/*; `remove()` deletes
 * it. With `tools`, the copy's tools/ holds exactly those fixture files (and its registry is regenerated),
 * so a test never depends on what the user keeps in their own tools/.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const COPIED = [
  "src",
  "tools",
  "guardrails",
  "scripts",
  "public",
  "wrangler.toml",
  "package.json",
  "tsconfig.json",
  "worker-configuration.d.ts",
  // The built main module's types, which worker-configuration.d.ts refers to (the copy type-checks).
  "dist/worker/index.d.ts",
];
const NODE_TS = ["--experimental-transform-types", "--disable-warning=ExperimentalWarning"];

export type TempProject = { root: string; remove(): Promise<void> };
/** File name in tools/ → its source. */
export type ToolFiles = Readonly<Record<string, string>>;

/** A plain-object tool that imports nothing and answers `text`: the smallest hand-written tool. */
export function plainToolSource(name: string, text = "ok"): string {
  return `export function getTool() {
  return {
    name: ${JSON.stringify(name)},
    label: ${JSON.stringify(name)},
    description: "The ${name} fixture tool.",
    inputSchema: { type: "object", properties: {} },
    execute: () => ({ content: [{ type: "text" as const, text: ${JSON.stringify(text)} }], details: {}, terminate: false }),
  };
}
`;
}

/** Runs `node <script> ...args` with the project's Node 22 in `cwd`; rejects with the output on failure. */
export function runNodeScript(cwd: string, script: string, args: readonly string[] = []): Promise<string> {
  const node = path.join(REPO_ROOT, "node_modules", ".bin", "node");
  return new Promise((resolve, reject) => {
    execFile(node, [...NODE_TS, script, ...args], { cwd }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(script)} failed: ${stdout}${stderr}`));
      else resolve(`${stdout}${stderr}`);
    });
  });
}

export async function copyProject(options: { tools?: ToolFiles } = {}): Promise<TempProject> {
  const root = await mkdtemp(path.join(tmpdir(), "edge-agent-project-"));
  const remove = () => rm(root, { recursive: true, force: true });
  try {
    for (const entry of COPIED) await cp(path.join(REPO_ROOT, entry), path.join(root, entry), { recursive: true });
    await symlink(path.join(REPO_ROOT, "node_modules"), path.join(root, "node_modules"), "dir");
    if (options.tools) await replaceTools(root, options.tools);
  } catch (err) {
    await remove();
    throw err;
  }
  return { root, remove };
}

/** Replaces the copy's tools/ with `files` and regenerates its registry from them. */
async function replaceTools(root: string, files: ToolFiles): Promise<void> {
  const dir = path.join(root, "tools");
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  for (const [file, source] of Object.entries(files)) await writeFile(path.join(dir, file), source);
  await runNodeScript(root, path.join(root, "scripts", "generate-registry.ts"));
}
