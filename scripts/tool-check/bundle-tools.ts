/**
 * Bundles tool files for the workerd check (esbuild reads and transforms them; nothing is executed): one
 * esbuild call with the checker (check-entry.ts) as an extra entry, so shared code lands in shared chunks.
 * `cloudflare:*` stays external: workerd provides it. A failing joint build is retried file by file so each
 * error names the tool it belongs to. Used by the registry generator and the redeploy's smoke load.
 */
import { build, type BuildOptions, type Message, type Plugin } from "esbuild";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeError } from "../../src/core/index.ts";

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHECK_ENTRY = path.join(PROJECT_ROOT, "scripts", "tool-check", "check-entry.ts");
/** The checker's module name in the bundle; tool modules are `tool-<i>.js` beside it. */
export const CHECKER_MODULE = "checker.js";

export type ToolBundles = {
  /** Source file → module name of its bundle (relative to the output folder), for files that bundled. */
  entries: Map<string, string>;
  /** Source file → its build errors, for files that did not. */
  errors: Map<string, string[]>;
};

/** How a file is named in messages: relative to the working directory when inside it. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep).join("/") : file;
}

/**
 * A tool may import the registry the generator writes (writeTool asks which names are bundled). While the
 * tools are being checked that file may be missing or stale, so it stands in as an empty registry.
 */
const emptyRegistryWhileChecking: Plugin = {
  name: "empty-registry-while-checking",
  setup(b) {
    b.onResolve({ filter: /registry\.generated(\.ts)?$/ }, (args) => ({ path: args.path, namespace: "empty-registry" }));
    b.onLoad({ filter: /.*/, namespace: "empty-registry" }, () => ({ contents: "export const toolRegistry = {};", loader: "js" }));
  },
};

const OPTIONS: BuildOptions = {
  bundle: true,
  format: "esm",
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  target: "es2022",
  splitting: true,
  external: ["cloudflare:*"],
  // Packages resolve from the project even for a tools folder elsewhere (tests use temporary ones).
  nodePaths: [path.join(PROJECT_ROOT, "node_modules")],
  logLevel: "silent",
  plugins: [emptyRegistryWhileChecking],
};

function formatBuildErrors(err: unknown): string[] {
  const messages: Partial<Message>[] =
    Array.isArray((err as { errors?: unknown })?.errors) && (err as { errors: Message[] }).errors.length
      ? (err as { errors: Message[] }).errors
      : [{ text: describeError(err) }];
  return messages.map((m) => {
    const where = m.location ? ` (${displayPath(path.resolve(m.location.file))}:${m.location.line}:${m.location.column})` : "";
    return `cannot be bundled: ${m.text ?? ""}${where}`;
  });
}

/** Bundles `files` and the checker into `outDir`. Entries get index names, so output names never collide. */
export async function bundleTools(files: readonly string[], outDir: string): Promise<ToolBundles> {
  const entry = (i: number) => ({ in: files[i]!, out: `tool-${i}` });
  const checker = { in: CHECK_ENTRY, out: CHECKER_MODULE.replace(/\.js$/, "") };
  try {
    await build({ ...OPTIONS, outdir: outDir, entryPoints: [checker, ...files.map((_, i) => entry(i))] });
    return { entries: new Map(files.map((file, i) => [file, `tool-${i}.js`])), errors: new Map() };
  } catch {
    // One build per file, each into a folder of its own beside the checker.
    await build({ ...OPTIONS, outdir: outDir, entryPoints: [checker] });
    const entries = new Map<string, string>();
    const errors = new Map<string, string[]>();
    for (const [i, file] of files.entries()) {
      try {
        await build({ ...OPTIONS, outdir: path.join(outDir, `single-${i}`), entryPoints: [entry(i)] });
        entries.set(file, `single-${i}/tool-${i}.js`);
      } catch (err) {
        errors.set(file, formatBuildErrors(err));
      }
    }
    return { entries, errors };
  }
}

/** Every `.js` file under `dir`, relative to it with `/` separators (the bundle's module names). */
export async function listModules(dir: string): Promise<string[]> {
  const found = await readdir(dir, { recursive: true, withFileTypes: true });
  return found
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}
