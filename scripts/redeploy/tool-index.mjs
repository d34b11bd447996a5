/**
 * The redeploy script's access to the written-tool index (KV `tool:<name>` rows) and sources (R2), from
 * Node. Local mode goes through wrangler's getPlatformProxy on a `wrangler dev --persist-to DIR` state
 * (readable and writable while wrangler dev runs); remote mode goes through the wrangler CLI (`--remote`).
 * Key shapes and the row format mirror src/tools/written/tool-index.ts (this script cannot import TS).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

export const INDEX_PREFIX = "tool:";
const KV_BINDING = "TOOL_INDEX";
const R2_BINDING = "TOOL_SOURCE";
const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STATUSES = new Set(["pending", "rejected", "deployed"]);

/** A row as writeTool stores it, or undefined for anything else (hand-edited or foreign keys). */
export function parseEntry(key, text) {
  let e;
  try {
    e = JSON.parse(text ?? "");
  } catch {
    return undefined;
  }
  if (!e || typeof e !== "object" || `${INDEX_PREFIX}${e.name}` !== key) return undefined;
  if (typeof e.name !== "string" || !TOOL_NAME_PATTERN.test(e.name)) return undefined;
  if (!Number.isInteger(e.version) || e.version < 1 || !STATUSES.has(e.status)) return undefined;
  if (typeof e.hash !== "string" || typeof e.sourceKey !== "string") return undefined;
  return e;
}

/** Local index over a wrangler dev state directory (the DIR given to `--persist-to`). */
async function openLocal({ configPath, persistTo }) {
  const { getPlatformProxy } = await import("wrangler");
  const proxy = await getPlatformProxy({ configPath, persist: { path: path.join(persistTo, "v3") } });
  const kv = proxy.env[KV_BINDING];
  const bucket = proxy.env[R2_BINDING];
  if (!kv || !bucket) {
    await proxy.dispose();
    throw new Error(`${configPath} must bind ${KV_BINDING} (KV) and ${R2_BINDING} (R2)`);
  }
  return {
    async listKeys() {
      const names = [];
      let cursor;
      do {
        const page = await kv.list({ prefix: INDEX_PREFIX, cursor });
        names.push(...page.keys.map((k) => k.name));
        cursor = page.list_complete ? undefined : page.cursor;
      } while (cursor);
      return names;
    },
    getText: (key) => kv.get(key),
    putText: (key, value) => kv.put(key, value),
    async getSource(key) {
      const object = await bucket.get(key);
      return object ? object.text() : null;
    },
    close: () => proxy.dispose(),
  };
}

function run(bin, args, cwd) {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`wrangler ${args.slice(0, 3).join(" ")} failed: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

/** Index through the wrangler CLI: `--remote` for the account's resources, or `--local` for a state dir. */
async function openCli({ root, configPath, bucketName, persistTo, remote }) {
  const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
  const where = remote ? ["--remote"] : ["--local", "--persist-to", persistTo];
  const common = [...where, "--config", configPath];
  const scratch = await mkdtemp(path.join(tmpdir(), "redeploy-kv-"));
  return {
    async listKeys() {
      const out = await run(wrangler, ["kv", "key", "list", "--binding", KV_BINDING, "--prefix", INDEX_PREFIX, ...common], root);
      // The JSON array is the last thing printed; banners may precede it.
      const json = out.slice(out.indexOf("["));
      return JSON.parse(json).map((k) => k.name);
    },
    async getText(key) {
      try {
        return await run(wrangler, ["kv", "key", "get", key, "--binding", KV_BINDING, "--text", ...common], root);
      } catch {
        return null;
      }
    },
    async putText(key, value) {
      const file = path.join(scratch, "value.json");
      await writeFile(file, value);
      await run(wrangler, ["kv", "key", "put", key, "--path", file, "--binding", KV_BINDING, ...common], root);
    },
    async getSource(key) {
      try {
        return await run(wrangler, ["r2", "object", "get", `${bucketName}/${key}`, "--pipe", ...common], root);
      } catch {
        return null;
      }
    },
    close: () => rm(scratch, { recursive: true, force: true }),
  };
}

/**
 * Opens the index. `local` needs `persistTo`; `via` forces "proxy" or "cli" (default: proxy locally,
 * cli remotely). Returns { listEntries, getSource, readEntry, putEntry, close }.
 */
export async function openToolIndex({ root, configPath, local, persistTo, via }) {
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig({ config: configPath });
  const bucketName = config.r2_buckets?.find((b) => b.binding === R2_BINDING)?.bucket_name;
  if (!bucketName) throw new Error(`${configPath} has no R2 bucket bound as ${R2_BINDING}`);
  const mode = via ?? (local ? "proxy" : "cli");
  const port =
    mode === "proxy"
      ? await openLocal({ configPath, persistTo })
      : await openCli({ root, configPath, bucketName, persistTo, remote: !local });
  const readEntry = async (name) => parseEntry(`${INDEX_PREFIX}${name}`, await port.getText(`${INDEX_PREFIX}${name}`));
  return {
    async listEntries() {
      const keys = await port.listKeys();
      const entries = await Promise.all(keys.map(async (key) => parseEntry(key, await port.getText(key))));
      return entries.filter(Boolean).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    readEntry,
    getSource: (key) => port.getSource(key),
    putEntry: (entry) => port.putText(`${INDEX_PREFIX}${entry.name}`, JSON.stringify(entry)),
    close: () => port.close(),
  };
}
