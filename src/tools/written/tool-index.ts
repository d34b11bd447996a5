/**
 * Where written tools live: R2 holds every version's rendered source and spec (never overwritten), KV
 * holds one index row per tool name (`tool:<name>`, the latest version and its status). writeTool commits
 * here; sessions, GET /v1/tools and scripts/redeploy.ts read here (the script imports these key shapes).
 * Invariant: the KV row is written last, so a row always points at objects that exist.
 */
import { TOOL_NAME_PATTERN } from "../../core/tool-store.ts";
import { renderToolSource } from "./render.ts";
import type { WrittenToolAuthor, WrittenToolEntry, WrittenToolSpec, WrittenToolStatus } from "./spec.ts";

export type ToolIndexEnv = { TOOL_INDEX: KVNamespace; TOOL_SOURCE: R2Bucket };

export const INDEX_PREFIX = "tool:";
export const indexKey = (name: string) => `${INDEX_PREFIX}${name}`;
export const sourceKey = (name: string, version: number) => `tools/${name}/v${version}.ts`;
export const specKey = (name: string, version: number) => `tools/${name}/v${version}.json`;

const STATUSES: readonly WrittenToolStatus[] = ["pending", "rejected", "deployed"];

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads an index row; anything malformed (hand-edited, from another version) counts as absent. */
export function parseEntry(text: string | null): WrittenToolEntry | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const e = value as Partial<WrittenToolEntry> | null;
  if (!e || typeof e !== "object") return undefined;
  if (typeof e.name !== "string" || !TOOL_NAME_PATTERN.test(e.name)) return undefined;
  if (typeof e.version !== "number" || !Number.isInteger(e.version) || e.version < 1) return undefined;
  if (!STATUSES.includes(e.status as WrittenToolStatus)) return undefined;
  if (typeof e.hash !== "string" || typeof e.sourceKey !== "string" || typeof e.specKey !== "string") return undefined;
  return e as WrittenToolEntry;
}

export async function readEntry(kv: KVNamespace, name: string): Promise<WrittenToolEntry | undefined> {
  const entry = parseEntry(await kv.get(indexKey(name)));
  return entry?.name === name ? entry : undefined;
}

/** Every index row, sorted by name. */
export async function listEntries(kv: KVNamespace): Promise<WrittenToolEntry[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list({ prefix: INDEX_PREFIX, cursor });
    names.push(...page.keys.map((k) => k.name.slice(INDEX_PREFIX.length)));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  const entries = await Promise.all(names.map((name) => readEntry(kv, name)));
  // A row must describe the tool its key names; one that does not was not written by writeTool.
  return entries
    .filter((e, i): e is WrittenToolEntry => e !== undefined && e.name === names[i])
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The spec a draft is rendered from, or undefined when the object is missing or unreadable. */
export async function readSpec(bucket: R2Bucket, entry: WrittenToolEntry): Promise<WrittenToolSpec | undefined> {
  const object = await bucket.get(entry.specKey);
  if (!object) return undefined;
  try {
    const spec = (await object.json()) as WrittenToolSpec;
    return spec && spec.name === entry.name && typeof spec.executeCode === "string" ? spec : undefined;
  } catch {
    return undefined;
  }
}

export type Committed = { entry: WrittenToolEntry; source: string };

/** Renders the next version of `spec`, stores source and spec in R2, then the pending row in KV. */
export async function commitWrittenTool(env: ToolIndexEnv, spec: WrittenToolSpec, author: WrittenToolAuthor, now: Date): Promise<Committed> {
  const previous = await readEntry(env.TOOL_INDEX, spec.name);
  const version = (previous?.version ?? 0) + 1;
  const writtenAt = now.toISOString();
  const { code: source } = renderToolSource(spec, { version, author, writtenAt });
  const hash = await sha256Hex(source);
  const entry: WrittenToolEntry = {
    name: spec.name,
    version,
    hash,
    status: "pending",
    label: spec.label,
    description: spec.description,
    author,
    writtenAt,
    sourceKey: sourceKey(spec.name, version),
    specKey: specKey(spec.name, version),
  };
  const customMetadata = { name: spec.name, version: String(version), hash };
  await env.TOOL_SOURCE.put(entry.sourceKey, source, { httpMetadata: { contentType: "text/typescript; charset=utf-8" }, customMetadata });
  await env.TOOL_SOURCE.put(entry.specKey, JSON.stringify(spec), { httpMetadata: { contentType: "application/json" }, customMetadata });
  await env.TOOL_INDEX.put(indexKey(spec.name), JSON.stringify(entry));
  return { entry, source };
}
