/**
 * Where written tools live: R2 holds every version's rendered source and spec (never overwritten), KV
 * holds one index row per tool name (`tool:<name>`, the latest version and its status, with a summary
 * in the key's metadata). writeTool commits here; sessions, GET /v1/tools and scripts/redeploy.ts read
 * here (the script imports these key shapes). Invariants: the KV row is written last, so a row always
 * points at objects that exist; a name whose row is not deployed belongs to the session that wrote it.
 */
import { TOOL_NAME_PATTERN } from "../../core/index.ts";
import { renderToolSource } from "./render.ts";
import { indexMetadata, summaryFromMetadata, type WrittenToolSummary } from "./index-summary.ts";
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

/**
 * Rows one listing reads: one KV `list` page. Past it, writeTool refuses new names and listings say
 * they are partial, so a growing index never turns a session load into thousands of KV reads.
 */
export const MAX_INDEX_ROWS = 1_000;

export type IndexListing = { summaries: WrittenToolSummary[]; complete: boolean };

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The first MAX_INDEX_ROWS rows, sorted by name, from the keys' metadata (index-summary.ts): one `list`
 * call. A row without metadata (an older writer) is read with a `get`.
 */
export async function listSummaries(kv: KVNamespace): Promise<IndexListing> {
  const page = await kv.list({ prefix: INDEX_PREFIX, limit: MAX_INDEX_ROWS });
  const summaries = await Promise.all(
    page.keys.map(async (key) => {
      const name = key.name.slice(INDEX_PREFIX.length);
      if (!TOOL_NAME_PATTERN.test(name)) return undefined;
      const summary = summaryFromMetadata(name, key.metadata);
      if (summary) return summary;
      const entry = await readEntry(kv, name);
      return entry && summaryOf(entry);
    }),
  );
  return { summaries: summaries.filter((s): s is WrittenToolSummary => s !== undefined).sort(byName), complete: page.list_complete };
}

const summaryOf = ({ sourceKey: _source, specKey: _spec, ...summary }: WrittenToolEntry): WrittenToolSummary => summary;

/** Writes a row with its summary as the key's metadata. */
export async function putEntry(kv: KVNamespace, entry: WrittenToolEntry): Promise<void> {
  await kv.put(indexKey(entry.name), JSON.stringify(entry), { metadata: indexMetadata(entry) });
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

export type CommitOutcome = { kind: "committed"; entry: WrittenToolEntry; source: string } | { kind: "name_taken" };

/** A row that is not deployed belongs to the session that wrote it: no one else may write its name. */
export const ownsName = (entry: WrittenToolEntry | WrittenToolSummary | undefined, sessionId: string | undefined): boolean =>
  entry === undefined || entry.status === "deployed" || entry.author.sessionId === sessionId;

/** R2 writes only when no object has the key, so two writers of one version cannot replace each other. */
const IF_ABSENT = new Headers({ "if-none-match": "*" });

/**
 * Renders the next version of `spec`, stores source and spec in R2 (each only if absent), then the
 * pending row in KV. `name_taken`: another session's draft holds the name, or won a concurrent write.
 */
export async function commitWrittenTool(
  env: ToolIndexEnv,
  spec: WrittenToolSpec,
  author: WrittenToolAuthor,
  now: Date,
): Promise<CommitOutcome> {
  const previous = await readEntry(env.TOOL_INDEX, spec.name);
  if (!ownsName(previous, author.sessionId)) return { kind: "name_taken" };
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
  const stored = await env.TOOL_SOURCE.put(entry.sourceKey, source, {
    httpMetadata: { contentType: "text/typescript; charset=utf-8" },
    customMetadata,
    onlyIf: IF_ABSENT,
  });
  if (stored === null) return { kind: "name_taken" };
  await env.TOOL_SOURCE.put(entry.specKey, JSON.stringify(spec), { httpMetadata: { contentType: "application/json" }, customMetadata });
  await putEntry(env.TOOL_INDEX, entry);
  return { kind: "committed", entry, source };
}
