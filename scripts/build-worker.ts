/**
 * Bundles the Worker (src/index.ts) into dist/worker/ as ES modules split at every dynamic import, which
 * wrangler.toml uploads as they are (`no_bundle`, one module per file). Run by wrangler's build step
 * before every `wrangler dev`/`deploy`, after the registries are generated.
 *
 * Why not wrangler's own bundling: it makes one file, where a dynamic import becomes a lazy initialiser
 * inside it. Every module such an import reaches is then wrapped, zod included (the MCP SDK uses it), so
 * zod is neither tree-shaken nor left out of start-up, and the whole file (the MCP SDK, acorn, jose) is
 * parsed by every new isolate. Split, an isolate loads the MCP SDK, acorn and jose only on first use.
 * Start-up CPU, interleaved A/B in docs/benchmarks.md "Start-up": about a quarter less.
 *
 * Invariants: the options wrangler would use (target, conditions, the `ajv` aliases the MCP SDK needs
 * replaced, minified); a file is rewritten only when its content changes and files of older builds are
 * removed, so a watching dev server does not reload for nothing and several dev servers may build at once.
 */
import { build, type BuildOptions } from "esbuild";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT_DIR = path.join(PROJECT_ROOT, "dist", "worker");

export type BuiltWorker = { outDir: string; files: number; changed: number; bytes: number };

/** How the Worker's source and packages are resolved and compiled; test/startup.node.test.ts bundles with these too. */
export const WORKER_BUNDLE_OPTIONS = {
  entryPoints: [path.join(PROJECT_ROOT, "src", "index.ts")],
  absWorkingDir: PROJECT_ROOT,
  bundle: true,
  format: "esm",
  platform: "neutral",
  // What wrangler bundles with: the runtime's syntax and the packages' Workers builds.
  target: "es2024",
  conditions: ["workerd", "worker", "browser"],
  mainFields: ["browser", "module", "main"],
  // The MCP SDK's default JSON Schema validator (ajv) compiles with eval, which Workers forbid; src/mcp
  // always passes @cfworker/json-schema instead, so ajv is replaced by stubs (-38 KiB gzip).
  alias: { ajv: "./src/mcp/no-ajv/ajv.ts", "ajv-formats": "./src/mcp/no-ajv/ajv-formats.ts" },
  define: { "process.env.NODE_ENV": '"production"' },
} satisfies BuildOptions;

export async function buildWorker(): Promise<BuiltWorker> {
  const result = await build({
    ...WORKER_BUNDLE_OPTIONS,
    splitting: true,
    external: ["cloudflare:*"],
    minify: true,
    legalComments: "none",
    outdir: OUT_DIR,
    entryNames: "[name]",
    chunkNames: "chunks/[name]-[hash]",
    write: false,
    logLevel: "silent",
  });
  await mkdir(path.join(OUT_DIR, "chunks"), { recursive: true });
  let changed = 0;
  let bytes = 0;
  const written = new Set<string>();
  for (const file of result.outputFiles) {
    written.add(file.path);
    bytes += file.contents.byteLength;
    const previous = await readFile(file.path, "utf8").catch(() => undefined);
    if (previous === file.text) continue;
    // Renamed into place, so a dev server reading the folder never sees half a file.
    const temporary = `${file.path}.${process.pid}.tmp`;
    await writeFile(temporary, file.contents);
    await rename(temporary, file.path);
    changed++;
  }
  for (const dir of [OUT_DIR, path.join(OUT_DIR, "chunks")]) {
    for (const name of await readdir(dir)) {
      const file = path.join(dir, name);
      if (name.endsWith(".js") && !written.has(file)) await rm(file, { force: true });
    }
  }
  return { outDir: OUT_DIR, files: result.outputFiles.length, changed, bytes };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildWorker();
  const changed = built.changed ? `${built.changed} changed` : "unchanged";
  console.log(`dist/worker: ${built.files} modules, ${(built.bytes / 1024).toFixed(0)} KiB, ${changed}`);
}
