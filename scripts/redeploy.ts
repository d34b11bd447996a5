/**
 * `npm run redeploy [-- --local --persist-to DIR] [--yes] [--dry-run | --no-deploy] [--config FILE]`: ships
 * the tools the agent wrote. Reads pending rows from KV, sources and specs from R2, checks each tool alone
 * (scripts/redeploy/check-tool.ts), records a failing one as rejected, prints the review (source, checks,
 * diff against the deployed version) and asks before shipping (`--yes` for CI). Then writes the passing
 * tools into tools/, regenerates the registry, deploys (`wrangler deploy`; locally `wrangler dev` reloads
 * from tools/ by itself) and marks them deployed. `--no-deploy` stops after writing tools/ (the CI
 * workflow opens a pull request from that). Safe to run again: nothing pending means nothing to do, and a
 * row is only changed while it still has the hash that was checked.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeError } from "../src/core/tool-results.ts";
import { WRITTEN_TOOL_MARKER } from "../src/tools/written/render.ts";
import type { WrittenToolEntry } from "../src/tools/written/spec.ts";
import { sha256Hex } from "../src/tools/written/tool-index.ts";
import { checkWrittenTool, STAGING_DIR } from "./redeploy/check-tool.ts";
import { confirm, renderReview, type Reviewed } from "./redeploy/review.ts";
import { openToolIndex, type IndexVia, type ToolIndex } from "./redeploy/tool-index.ts";

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const log = (line: string) => console.log(`redeploy: ${line}`);

type Options = { local: boolean; persistTo?: string; dryRun: boolean; noDeploy: boolean; yes: boolean; configPath: string; via?: IndexVia };
type Installed = { entry: WrittenToolEntry; undo: () => Promise<void> };

const USAGE = "expected --local, --persist-to DIR, --yes, --dry-run, --no-deploy, --config FILE, --index-via proxy|cli";

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { local: false, dryRun: false, noDeploy: false, yes: false, configPath: path.join(PROJECT_ROOT, "wrangler.toml") };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === "--local") options.local = true;
    else if (arg === "--persist-to") options.persistTo = path.resolve(value());
    else if (arg === "--dry-run") options.dryRun = true;
    else if (arg === "--no-deploy") options.noDeploy = true;
    else if (arg === "--yes" || arg === "-y") options.yes = true;
    else if (arg === "--config") options.configPath = path.resolve(value());
    else if (arg === "--index-via") {
      const via = value();
      if (via !== "proxy" && via !== "cli") throw new Error("--index-via is proxy or cli");
      options.via = via;
    } else throw new Error(`unknown option ${arg} (${USAGE})`);
  }
  if (options.local && !options.persistTo) throw new Error("--local needs --persist-to DIR (the directory wrangler dev persists to)");
  if (options.via === "proxy" && !options.local) throw new Error("--index-via proxy works only with --local");
  if (options.dryRun && options.noDeploy) throw new Error("--dry-run and --no-deploy exclude each other");
  return options;
}

/** Runs a project binary with Node 22 first on PATH (wrangler refuses older Node). */
function runBin(name: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  const bin = path.join(PROJECT_ROOT, "node_modules", ".bin");
  return new Promise((resolve) => {
    const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
    execFile(path.join(bin, name), args, { cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024, env }, (err, stdout, stderr) => {
      resolve({ ok: !err, output: `${stdout}${stderr}`.trim() });
    });
  });
}

const regenerateRegistry = () =>
  runBin("node", ["--experimental-transform-types", "--disable-warning=ExperimentalWarning", path.join(PROJECT_ROOT, "scripts", "generate-registry.ts")]);

/** Writes tools/<name>.ts atomically; returns how to undo it (the previous content, or none). */
async function installTool(name: string, source: string): Promise<() => Promise<void>> {
  const file = path.join(PROJECT_ROOT, "tools", `${name}.ts`);
  const previous = existsSync(file) ? await readFile(file, "utf8") : undefined;
  // The temporary file lives outside tools/, so a watching `wrangler dev` never sees a partial file.
  const temp = path.join(PROJECT_ROOT, `${STAGING_DIR}-${name}.tmp`);
  await writeFile(temp, source);
  await rename(temp, file);
  return async () => {
    if (previous === undefined) await rm(file, { force: true });
    else await writeFile(file, previous);
  };
}

/** Updates a row only while it still describes the version that was checked (a newer write wins). */
async function updateIfUnchanged(index: ToolIndex, entry: WrittenToolEntry, changes: Partial<WrittenToolEntry>): Promise<boolean> {
  const current = await index.readEntry(entry.name);
  if (!current || current.hash !== entry.hash || current.version !== entry.version) {
    log(`${entry.name}: a newer version was written meanwhile; its row is left as it is`);
    return false;
  }
  const { error: _error, rejectedAt: _rejectedAt, ...rest } = current;
  await index.putEntry({ ...rest, ...changes });
  return true;
}

/** Deployed written tools whose file is missing (a fresh checkout): put back so this deploy keeps them. */
async function restoreDeployed(index: ToolIndex, entries: readonly WrittenToolEntry[]): Promise<Installed[]> {
  const restored: Installed[] = [];
  for (const entry of entries.filter((e) => e.status === "deployed")) {
    if (existsSync(path.join(PROJECT_ROOT, "tools", `${entry.name}.ts`))) continue;
    const source = await index.getSource(entry.sourceKey);
    if (!source || (await sha256Hex(source)) !== entry.hash || !source.startsWith(WRITTEN_TOOL_MARKER)) {
      log(`${entry.name}: deployed, but its source cannot be restored from R2; it will be missing from this deploy`);
      continue;
    }
    restored.push({ entry, undo: await installTool(entry.name, source) });
  }
  if (restored.length) log(`restored ${restored.length} deployed written tool(s) missing from tools/: ${restored.map((r) => r.entry.name).join(", ")}`);
  return restored;
}

async function deploy(options: Options): Promise<{ ok: boolean; output: string }> {
  if (options.local) {
    log("local mode: wrangler dev rebuilds from tools/ (watch_dir), no wrangler deploy");
    return { ok: true, output: "" };
  }
  const args = ["deploy", "--config", options.configPath];
  let outdir: string | undefined;
  if (options.dryRun) {
    outdir = await mkdtemp(path.join(tmpdir(), "redeploy-dry-run-"));
    args.push("--dry-run", "--outdir", outdir);
  }
  log(`wrangler ${args.join(" ")}`);
  const result = await runBin("wrangler", args);
  if (outdir) await rm(outdir, { recursive: true, force: true });
  if (!result.ok) console.error(result.output);
  return result;
}

/** Checks every pending tool and prints its review; failing ones are recorded as rejected (not in a dry run). */
async function review(index: ToolIndex, pending: readonly WrittenToolEntry[], options: Options): Promise<Reviewed[]> {
  const reviewed: Reviewed[] = [];
  for (const entry of pending) {
    const [source, spec] = await Promise.all([index.getSource(entry.sourceKey), index.getSpec(entry.specKey)]);
    const report = await checkWrittenTool({ root: PROJECT_ROOT, entry, source, spec });
    reviewed.push({ entry, source, report });
    console.log(`\n${await renderReview(PROJECT_ROOT, { entry, source, report })}\n`);
    if (!report.ok && !options.dryRun) await updateIfUnchanged(index, entry, { status: "rejected", error: report.error, rejectedAt: new Date().toISOString() });
  }
  return reviewed;
}

async function redeploy(options: Options): Promise<number> {
  const index = await openToolIndex({ root: PROJECT_ROOT, configPath: options.configPath, local: options.local, persistTo: options.persistTo, via: options.via });
  try {
    const entries = await index.listEntries();
    const pending = entries.filter((e) => e.status === "pending");
    if (pending.length === 0) {
      log(`nothing to redeploy (${entries.length} written tool(s), none pending)`);
      return 0;
    }
    log(`${pending.length} pending: ${pending.map((e) => `${e.name} v${e.version}`).join(", ")}`);
    const reviewed = await review(index, pending, options);
    const passed = reviewed.filter((r): r is Reviewed & { source: string } => r.report.ok && r.source !== null);
    const rejected = reviewed.length - passed.length;
    for (const r of reviewed) log(`${r.entry.name} v${r.entry.version}: ${r.report.ok ? "checks passed" : "rejected"}`);
    if (passed.length === 0) {
      log(`nothing to deploy: ${rejected} tool(s) rejected, the deployed Worker is unchanged`);
      return 0;
    }
    const question = `${options.noDeploy ? "Write" : "Ship"} ${passed.length} tool(s): ${passed.map((r) => `${r.entry.name} v${r.entry.version}`).join(", ")}?`;
    // A dry run changes nothing, so it needs no yes.
    if (!options.yes && !options.dryRun && !(await confirm(question))) {
      log("not confirmed: nothing was shipped; the passing tools stay pending (run again, or pass --yes)");
      return 1;
    }

    const installed = [...(await restoreDeployed(index, entries))];
    for (const { entry, source } of passed) installed.push({ entry, undo: await installTool(entry.name, source) });
    const undoAll = async () => {
      for (const { undo } of installed.reverse()) await undo();
      await regenerateRegistry();
    };

    const generated = await regenerateRegistry();
    if (!generated.ok) {
      console.error(generated.output);
      await undoAll();
      log("registry generation failed; tools/ is restored and no row was changed");
      return 1;
    }
    if (options.noDeploy) {
      log(`wrote ${passed.map(({ entry }) => `tools/${entry.name}.ts`).join(", ")} and the registry; nothing deployed, no row changed. Review and merge them; then \`npm run redeploy -- --yes\` ships them.`);
      return 0;
    }
    const deployed = await deploy(options);
    if (!deployed.ok || options.dryRun) {
      // A dry run only proves the build; a failed deploy must not leave files that the next deploy would ship.
      await undoAll();
      log(deployed.ok ? `dry run OK: ${passed.length} tool(s) would be deployed; tools/ is restored and no row was changed` : "wrangler deploy failed; tools/ is restored and no row was changed");
      return deployed.ok ? 0 : 1;
    }
    const deployedAt = new Date().toISOString();
    for (const { entry } of passed) await updateIfUnchanged(index, entry, { status: "deployed", deployedAt });
    log(`deployed ${passed.map(({ entry }) => `${entry.name} v${entry.version}`).join(", ")}${rejected ? `; ${rejected} rejected` : ""}. Commit tools/ to keep them.`);
    return 0;
  } finally {
    await index.close();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let options: Options;
  try {
    options = parseArgs(argv);
  } catch (err) {
    console.error(`redeploy: ${describeError(err)}`);
    return 2;
  }
  try {
    return await redeploy(options);
  } catch (err) {
    console.error(`redeploy: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
