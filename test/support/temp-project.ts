/**
 * A throwaway copy of the project for tests that run build scripts (redeploy writes tools/ and the
 * generated registry): src/, tools/, scripts/, public/ and the config files are copied, node_modules is
 * linked. Used by test/scripts/redeploy.test.ts and test/e2e/write-tool.test.ts; `remove()` deletes it.
 */
import { cp, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const COPIED = ["src", "tools", "scripts", "public", "wrangler.toml", "package.json", "tsconfig.json", "worker-configuration.d.ts"];

export type TempProject = { root: string; remove(): Promise<void> };

export async function copyProject(): Promise<TempProject> {
  const root = await mkdtemp(path.join(tmpdir(), "edge-agent-project-"));
  for (const entry of COPIED) await cp(path.join(REPO_ROOT, entry), path.join(root, entry), { recursive: true });
  await symlink(path.join(REPO_ROOT, "node_modules"), path.join(root, "node_modules"), "dir");
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}
