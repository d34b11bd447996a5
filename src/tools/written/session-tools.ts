/**
 * The session's side of written tools, called from the session loader: register the session's own
 * pending written tools as drafts when it starts (a draft belongs to the session that wrote it until it
 * is deployed), register one draft right after writeTool committed it (the registerDraft capability),
 * drop one an operator rejected, and give listTools its extra lines. Bundled tools always win a name
 * clash; drafts only replace drafts. Never throws into the session: an unreadable index means no drafts.
 * Only a session that wrote a tool, with writeTool on, reads the index when it starts: every other wake
 * (most of them answer a snapshot or an event stream) costs no KV or R2 read.
 */
import { readSetting } from "../../config.ts";
import type { ToolListingExtra, ToolStore } from "../../core/index.ts";
import type { AgentTool } from "../../core/index.ts";
import type { ToolHost } from "../tool-context.ts";
import { bundledToolNames } from "../catalog.ts";
import { createDraftTool, isDraftTool } from "./draft-tool.ts";
import { formatWrittenToolLines, PARTIAL_LISTING_NOTE, readWrittenSummaries, visibleToSession, type WrittenToolsEnv } from "./listing.ts";
import { readEntry, readSpec } from "./tool-index.ts";

/** Registers `draft` unless a bundled tool has its name; returns whether it did. */
export function registerDraft(store: ToolStore, draft: AgentTool): boolean {
  const existing = store.get(draft.name);
  if (existing && !isDraftTool(existing)) return false;
  if (bundledToolNames().includes(draft.name)) return false;
  store.register(draft);
  return true;
}

/**
 * The session's meta row saying it wrote a tool, so drafts of its own may be pending: set when writeTool
 * hands it a draft, never cleared (the index may not list a new row yet, so its absence proves nothing).
 * Sessions from before the row existed get it from a schema migration (session-schema.ts).
 */
export const WROTE_TOOLS_KEY = "wroteTools";

/** The slice of the session's meta table this needs. */
export type DraftMeta = { read<T>(key: string): T | undefined; write(key: string, value: unknown): void };

/**
 * What a session offers its tools: its id, the Worker's env (each tool sees only what it declared) and
 * registerDraft into its own store, which marks the session as one that wrote a tool.
 */
export function sessionToolHost(store: ToolStore, env: Readonly<Record<string, unknown>>, meta: DraftMeta): ToolHost {
  const register = (tool: AgentTool) => {
    if (meta.read<boolean>(WROTE_TOOLS_KEY) !== true) meta.write(WROTE_TOOLS_KEY, true);
    return registerDraft(store, tool);
  };
  return { sessionId: store.sessionId, env, capabilities: { registerDraft: register, bundledToolNames } };
}

/**
 * The session's own pending drafts as it starts, where it could have any: writeTool is on and this
 * session wrote a tool. Returns the names registered; never rejects.
 */
export function registerOwnDrafts(
  store: ToolStore,
  env: WrittenToolsEnv & { WRITE_TOOL_ENABLED?: string | undefined },
  meta: DraftMeta,
  allowed?: readonly string[],
): Promise<string[]> {
  if (!readSetting(env, "WRITE_TOOL_ENABLED") || meta.read<boolean>(WROTE_TOOLS_KEY) !== true) return Promise.resolve([]);
  return registerWrittenDrafts(store, env, allowed);
}

/** Removes the draft `name` from the store (an operator rejected it); a bundled tool is never removed. */
export function dropDraft(store: ToolStore, name: string): boolean {
  return isDraftTool(store.get(name)) && store.tools.delete(name);
}

/**
 * Adds the pending written tools this session wrote as drafts (when the Worker has a LOADER): the store's
 * name is the session id. `allowed` is the session's tool subset, if it has one: then only drafts it
 * names are added. Returns the names registered.
 */
export async function registerWrittenDrafts(store: ToolStore, env: WrittenToolsEnv, allowed?: readonly string[]): Promise<string[]> {
  const { LOADER: loader, TOOL_SOURCE: bucket } = env;
  if (!loader || !bucket) return [];
  const added: string[] = [];
  try {
    const { summaries } = await readWrittenSummaries(env);
    const own = summaries.filter((e) => e.status === "pending" && e.author.sessionId === store.sessionId);
    const pending = own.filter((e) => !allowed || allowed.includes(e.name));
    // Only the session's own rows are read whole (at most MAX_DRAFTS_PER_SESSION), never every row.
    const entries = env.TOOL_INDEX ? await Promise.all(pending.map((e) => readEntry(env.TOOL_INDEX!, e.name))) : [];
    const specs = await Promise.all(
      entries.map((entry) => (entry && entry.author.sessionId === store.sessionId ? readSpec(bucket, entry) : undefined)),
    );
    for (const spec of specs) {
      if (spec && registerDraft(store, createDraftTool(loader, spec, store.sessionId))) added.push(spec.name);
    }
  } catch (err) {
    console.warn("written tools: drafts could not be loaded", err);
  }
  return added;
}

/** listTools' `extra`: the written tools' states as seen from this store. */
export function writtenToolListing(env: WrittenToolsEnv, store: ToolStore): ToolListingExtra {
  return async () => {
    try {
      const { summaries, complete } = await readWrittenSummaries(env);
      const lines = formatWrittenToolLines(visibleToSession(summaries, store.sessionId), store, env.LOADER !== undefined);
      return complete ? lines : [...lines, `(${PARTIAL_LISTING_NOTE})`];
    } catch (err) {
      return [`(written tools could not be listed: ${err instanceof Error ? err.message : String(err)})`];
    }
  };
}
