/**
 * The redeploy script's access to the written-tool index (KV `tool:<name>` rows) and stored objects (R2),
 * from Node. Local mode goes through wrangler's getPlatformProxy on a `wrangler dev --persist-to DIR`
 * state (readable and writable while wrangler dev runs); remote mode goes through the wrangler CLI
 * (`--remote`). Key shapes and row parsing are the Worker's own (src/tools/written/tool-index.ts). The
 * proxy is given a config holding only the KV and R2 bindings (same ids, so the same local data): the
 * project's Durable Object and AI bindings would only print warnings about what the script never uses.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { getPlatformProxy, unstable_readConfig, type PlatformProxy, type Unstable_Config } from "wrangler";
import { indexMetadata } from "../../src/tools/written/index-summary.ts";
import { INDEX_PREFIX, indexKey, parseEntry } from "../../src/tools/written/tool-index.ts";
import type { WrittenToolEntry, WrittenToolSpec } from "../../src/tools/written/spec.ts";

const KV_BINDING = "TOOL_INDEX";
const R2_BINDING = "TOOL_SOURCE";

export type IndexVia = "proxy" | "cli";
export type IndexOptions = { root: string; configPath: string; local: boolean; persistTo?: string; via?: IndexVia };

/** The few operations the script needs, whichever way it reaches KV and R2. */
type IndexPort = {
  listKeys(): Promise<string[]>;
  getText(key: string): Promise<string | null>;
  putText(key: string, value: string, metadata: unknown): Promise<void>;
  getObject(key: string): Promise<string | null>;
  close(): Promise<void>;
};

export type ToolIndex = {
  listEntries(): Promise<WrittenToolEntry[]>;
  readEntry(name: string): Promise<WrittenToolEntry | undefined>;
  putEntry(entry: WrittenToolEntry): Promise<void>;
  getSource(key: string): Promise<string | null>;
  getSpec(key: string): Promise<WrittenToolSpec | null>;
  close(): Promise<void>;
};

/** A row as writeTool stores it under `key`, or undefined for anything else (hand-edited or foreign keys). */
const entryAt = (key: string, text: string | null) => {
  const entry = parseEntry(text);
  return entry && indexKey(entry.name) === key ? entry : undefined;
};

type Binding = { binding: string };

/** A wrangler config with just the index's KV namespace and R2 bucket of `config`, written to `dir`. */
async function storageOnlyConfig(config: Unstable_Config, configPath: string, dir: string): Promise<string> {
  const kv = (config.kv_namespaces as Binding[]).filter((b) => b.binding === KV_BINDING);
  const r2 = (config.r2_buckets as Binding[]).filter((b) => b.binding === R2_BINDING);
  if (kv.length !== 1 || r2.length !== 1) throw new Error(`${configPath} must bind ${KV_BINDING} (KV) and ${R2_BINDING} (R2)`);
  const file = path.join(dir, "wrangler.json");
  await writeFile(
    file,
    JSON.stringify({ name: config.name, compatibility_date: config.compatibility_date, kv_namespaces: kv, r2_buckets: r2 }),
  );
  return file;
}

/** Local index over a wrangler dev state directory (the DIR given to `--persist-to`). */
async function openLocal(config: Unstable_Config, configPath: string, persistTo: string): Promise<IndexPort> {
  const scratch = await mkdtemp(path.join(tmpdir(), "redeploy-config-"));
  let proxy: PlatformProxy<{ TOOL_INDEX: KVNamespace; TOOL_SOURCE: R2Bucket }>;
  try {
    const storageConfig = await storageOnlyConfig(config, configPath, scratch);
    proxy = await getPlatformProxy({ configPath: storageConfig, persist: { path: path.join(persistTo, "v3") }, remoteBindings: false });
  } catch (err) {
    await rm(scratch, { recursive: true, force: true });
    throw err;
  }
  const kv = proxy.env[KV_BINDING];
  const bucket = proxy.env[R2_BINDING];
  return {
    async listKeys() {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await kv.list({ prefix: INDEX_PREFIX, cursor });
        names.push(...page.keys.map((k) => k.name));
        cursor = page.list_complete ? undefined : page.cursor;
      } while (cursor);
      return names;
    },
    getText: (key) => kv.get(key),
    putText: (key, value, metadata) => kv.put(key, value, { metadata }),
    async getObject(key) {
      const object = await bucket.get(key);
      return object ? object.text() : null;
    },
    async close() {
      await proxy.dispose();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

function run(bin: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" } },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`wrangler ${args.slice(0, 3).join(" ")} failed: ${stderr || err.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** Index through the wrangler CLI: `--remote` for the account's resources, or `--local` for a state dir. */
async function openCli(
  root: string,
  configPath: string,
  bucketName: string,
  persistTo: string | undefined,
  remote: boolean,
): Promise<IndexPort> {
  const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
  const where = remote ? ["--remote"] : ["--local", "--persist-to", persistTo ?? ""];
  const common = [...where, "--config", configPath];
  const scratch = await mkdtemp(path.join(tmpdir(), "redeploy-kv-"));
  return {
    async listKeys() {
      const out = await run(wrangler, ["kv", "key", "list", "--binding", KV_BINDING, "--prefix", INDEX_PREFIX, ...common], root);
      // The JSON array is the last thing printed; banners may precede it.
      return (JSON.parse(out.slice(out.indexOf("["))) as { name: string }[]).map((k) => k.name);
    },
    async getText(key) {
      try {
        return await run(wrangler, ["kv", "key", "get", key, "--binding", KV_BINDING, "--text", ...common], root);
      } catch {
        return null;
      }
    },
    async putText(key, value, metadata) {
      const file = path.join(scratch, "value.json");
      await writeFile(file, value);
      await run(
        wrangler,
        ["kv", "key", "put", key, "--path", file, "--metadata", JSON.stringify(metadata), "--binding", KV_BINDING, ...common],
        root,
      );
    },
    async getObject(key) {
      try {
        return await run(wrangler, ["r2", "object", "get", `${bucketName}/${key}`, "--pipe", ...common], root);
      } catch {
        return null;
      }
    },
    close: () => rm(scratch, { recursive: true, force: true }),
  };
}

/** Opens the index; `via` forces "proxy" or "cli" (default: proxy locally, cli remotely). */
export async function openToolIndex({ root, configPath, local, persistTo, via }: IndexOptions): Promise<ToolIndex> {
  const config = unstable_readConfig({ config: configPath });
  const bucketName = (config.r2_buckets as { binding: string; bucket_name?: string }[] | undefined)?.find(
    (b) => b.binding === R2_BINDING,
  )?.bucket_name;
  if (!bucketName) throw new Error(`${configPath} has no R2 bucket bound as ${R2_BINDING}`);
  const mode = via ?? (local ? "proxy" : "cli");
  const port =
    mode === "proxy"
      ? await openLocal(config, configPath, persistTo ?? "")
      : await openCli(root, configPath, bucketName, persistTo, !local);
  return {
    async listEntries() {
      const keys = await port.listKeys();
      const entries = await Promise.all(keys.map(async (key) => entryAt(key, await port.getText(key))));
      return entries.filter((e): e is WrittenToolEntry => e !== undefined).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    readEntry: async (name) => entryAt(indexKey(name), await port.getText(indexKey(name))),
    // The row's summary rides in the key's metadata, so the Worker lists the index in one call.
    putEntry: (entry) => port.putText(indexKey(entry.name), JSON.stringify(entry), indexMetadata(entry)),
    getSource: (key) => port.getObject(key),
    async getSpec(key) {
      const text = await port.getObject(key);
      try {
        return text === null ? null : (JSON.parse(text) as WrittenToolSpec);
      } catch {
        return null;
      }
    },
    close: () => port.close(),
  };
}
