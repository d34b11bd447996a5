/**
 * `npm run redeploy [-- --local [--persist-to DIR]] [--yes] [--dry-run | --no-deploy] [--config FILE]`: ships
 * the tools the agent wrote (docs/redeploy.md). Reads pending rows from KV, sources and specs from R2,
 * checks each tool alone (scripts/redeploy/check-tool.ts), records a failing one as rejected, prints the
 * review (source, checks, diff against the deployed version) and asks before shipping (`--yes` for CI).
 * Deployed tools missing from tools/ are restored from R2 only through the same checks and review. Then
 * writes the passing tools into tools/, regenerates the registry, deploys (`wrangler deploy`; locally
 * `wrangler dev` reloads from tools/ by itself) and marks them deployed. A project that does not typecheck
 * by itself judges no tool. Safe to run again: a row is only changed while it has the hash that was checked.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeError } from "../src/core/index.ts";
import type { WrittenToolEntry } from "../src/tools/written/spec.ts";
import { checkWrittenTools, STAGING_DIR } from "./redeploy/check-tool.ts";
import { confirm, renderReview, type Reviewed } from "./redeploy/review.ts";
import type { IndexVia, ToolIndex } from "./redeploy/tool-index.ts";

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const log = (line: string) => console.log(`redeploy: ${line}`);

type Options = {
  help: boolean;
  local: boolean;
  persistTo?: string;
  dryRun: boolean;
  noDeploy: boolean;
  yes: boolean;
  configPath: string;
  via?: IndexVia;
};
type Installed = { entry: WrittenToolEntry; undo: () => Promise<void> };

/** Where `npm start` (wrangler dev) keeps its KV, R2 and Durable Object state unless told otherwise. */
const WRANGLER_DEV_STATE = ".wrangler/state";

const USAGE = `usage: npm run redeploy -- [options]

Checks the tools the agent wrote (writeTool), shows each one's source, checks and diff, asks, then ships
the passing ones into tools/ and deploys them. Details: docs/redeploy.md.

  --local             use the state of a local \`npm start\` instead of your Cloudflare account; nothing is
                      deployed (wrangler dev reloads from tools/ by itself)
  --persist-to DIR    with --local: the state directory (default ${WRANGLER_DEV_STATE}, where \`npm start\`
                      keeps it; give the same DIR you gave \`wrangler dev --persist-to\`)
  --dry-run           check and review only: nothing is written, recorded or deployed
  --no-deploy         write the passing tools into tools/ and stop (for a pull request); rows stay pending
  --yes, -y           ship without asking (CI)
  --config FILE       wrangler config (default wrangler.toml)
  --index-via proxy|cli  how to reach KV and R2 (default: proxy with --local, the wrangler CLI otherwise)
  --help, -h          this text

Without --local the index is read from your account: that needs \`npx wrangler login\` (or
CLOUDFLARE_API_TOKEN). To try the redeploy without an account: \`npm run redeploy -- --local --dry-run\`.`;

function parseArgs(argv: readonly string[]): Options {
  const options: Options = {
    help: false,
    local: false,
    dryRun: false,
    noDeploy: false,
    yes: false,
    configPath: path.join(PROJECT_ROOT, "wrangler.toml"),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === "--help" || arg === "-h") options.help = true;
    else if (arg === "--local") options.local = true;
    else if (arg === "--persist-to") options.persistTo = path.resolve(value());
    else if (arg === "--dry-run") options.dryRun = true;
    else if (arg === "--no-deploy") options.noDeploy = true;
    else if (arg === "--yes" || arg === "-y") options.yes = true;
    else if (arg === "--config") options.configPath = path.resolve(value());
    else if (arg === "--index-via") {
      const via = value();
      if (via !== "proxy" && via !== "cli") throw new Error("--index-via is proxy or cli");
      options.via = via;
    } else throw new Error(`unknown option ${arg} (\`npm run redeploy -- --help\` lists the options)`);
  }
  if (options.persistTo && !options.local) throw new Error("--persist-to works only with --local");
  if (options.local) options.persistTo ??= path.join(PROJECT_ROOT, WRANGLER_DEV_STATE);
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
  runBin("node", [
    "--experimental-transform-types",
    "--disable-warning=ExperimentalWarning",
    path.join(PROJECT_ROOT, "scripts", "generate-registry.ts"),
  ]);

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

/**
 * Checks the pending tools and the deployed ones to restore in one batch (one tsc, one workerd) and prints
 * each review; records nothing (that waits until every verdict is known).
 */
async function review(
  index: ToolIndex,
  pending: readonly WrittenToolEntry[],
  restores: readonly WrittenToolEntry[],
  options: Options,
): Promise<{ reviewed: Reviewed[]; restored: Reviewed[] }> {
  const entries = [...pending, ...restores];
  const tools = await Promise.all(
    entries.map(async (entry) => ({ entry, source: await index.getSource(entry.sourceKey), spec: await index.getSpec(entry.specKey) })),
  );
  const reports = await checkWrittenTools(PROJECT_ROOT, tools);
  const items = tools.map(
    ({ entry, source }, i): Reviewed =>
      i < pending.length ? { entry, source, report: reports[i]! } : { entry, source, report: reports[i]!, restore: true },
  );
  for (const item of items) console.log(`\n${await renderReview(PROJECT_ROOT, item, { dryRun: options.dryRun })}\n`);
  return { reviewed: items.slice(0, pending.length), restored: items.slice(pending.length) };
}

const names = (items: readonly Reviewed[]) => items.map((r) => `${r.entry.name} v${r.entry.version}`).join(", ");
const passing = (items: readonly Reviewed[]) => items.filter((r): r is Reviewed & { source: string } => r.report.ok && r.source !== null);

async function redeploy(options: Options): Promise<number> {
  // Loaded here, not at the top: it pulls in wrangler, which `--help` and a bad option need not wait for.
  const { openToolIndex } = await import("./redeploy/tool-index.ts");
  const index = await openToolIndex({
    root: PROJECT_ROOT,
    configPath: options.configPath,
    local: options.local,
    persistTo: options.persistTo,
    via: options.via,
  });
  try {
    const entries = await index.listEntries();
    const pending = entries.filter((e) => e.status === "pending");
    if (pending.length === 0) {
      log(`nothing to redeploy (${entries.length} written tool(s), none pending)`);
      return 0;
    }
    log(`${pending.length} pending: ${pending.map((e) => `${e.name} v${e.version}`).join(", ")}`);
    // A fresh checkout lacks the deployed written tools; this deploy must keep them, so they are put back
    // from R2, but only through every check and the review, as if they were new.
    const missing = entries.filter((e) => e.status === "deployed" && !existsSync(path.join(PROJECT_ROOT, "tools", `${e.name}.ts`)));
    const { reviewed, restored: restores } = await review(index, pending, missing, options);

    const broken = [...reviewed, ...restores].find((r) => !r.report.ok && r.report.blame === "project");
    if (broken && !broken.report.ok) {
      console.error(`redeploy: the project does not typecheck without any written tool, so no tool was judged:\n${broken.report.error}`);
      log("fix the project first (`npx tsc --noEmit`); nothing was rejected, written or deployed");
      return 1;
    }
    const rejected = reviewed.filter((r) => !r.report.ok);
    for (const r of reviewed)
      log(`${r.entry.name} v${r.entry.version}: ${r.report.ok ? "checks passed" : options.dryRun ? "would reject" : "rejected"}`);
    if (!options.dryRun) {
      for (const r of rejected)
        if (!r.report.ok)
          await updateIfUnchanged(index, r.entry, { status: "rejected", error: r.report.error, rejectedAt: new Date().toISOString() });
    }
    const passed = passing(reviewed);
    if (passed.length === 0) {
      log(
        `nothing to deploy: ${rejected.length} tool(s) ${options.dryRun ? "would be rejected" : "rejected"}, the deployed Worker is unchanged`,
      );
      return 0;
    }
    const restored = passing(restores);
    for (const r of restores)
      if (!r.report.ok)
        log(`${r.entry.name} v${r.entry.version}: deployed, but its stored source fails the checks; it will be missing from this deploy`);
    const restoring = restored.length ? ` (and restore ${names(restored)})` : "";
    const question = `${options.noDeploy ? "Write" : "Ship"} ${passed.length} tool(s): ${names(passed)}${restoring}?`;
    // A dry run changes nothing, so it needs no yes.
    if (!options.yes && !options.dryRun && !(await confirm(question))) {
      log("not confirmed: nothing was shipped; the passing tools stay pending (run again, or pass --yes)");
      return 1;
    }

    const installed: Installed[] = [];
    for (const { entry, source } of [...restored, ...passed]) installed.push({ entry, undo: await installTool(entry.name, source) });
    if (restored.length) log(`restored ${restored.length} deployed written tool(s) missing from tools/: ${names(restored)}`);
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
      log(
        `wrote ${passed.map(({ entry }) => `tools/${entry.name}.ts`).join(", ")} and the registry; nothing deployed, no row changed. Review and merge them; then \`npm run redeploy -- --yes\` ships them.`,
      );
      return 0;
    }
    const deployed = await deploy(options);
    if (!deployed.ok || options.dryRun) {
      // A dry run only proves the build; a failed deploy must not leave files that the next deploy would ship.
      await undoAll();
      log(
        deployed.ok
          ? `dry run OK: ${passed.length} tool(s) would be deployed; tools/ is restored and no row was changed`
          : "wrangler deploy failed; tools/ is restored and no row was changed",
      );
      return deployed.ok ? 0 : 1;
    }
    const deployedAt = new Date().toISOString();
    for (const { entry } of passed) await updateIfUnchanged(index, entry, { status: "deployed", deployedAt });
    log(`deployed ${names(passed)}${rejected.length ? `; ${rejected.length} rejected` : ""}. Commit tools/ to keep them.`);
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
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    return await redeploy(options);
  } catch (err) {
    const hint = options.local
      ? ` (is ${path.relative(process.cwd(), options.persistTo ?? "") || "."} the state of \`npm start\`? See --help.)`
      : " (without --local the index is read from your Cloudflare account: `npx wrangler login` first, or try `--local --dry-run`)";
    console.error(`redeploy: ${describeError(err)}${hint}`);
    return 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
