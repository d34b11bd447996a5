/**
 * The session's side of written tools, called from AgentSession: register pending written tools as
 * drafts into a new session's ToolStore, register one draft right after writeTool committed it, and
 * give listTools its extra lines. Bundled tools always win a name clash; drafts only replace drafts.
 * Never throws into the session: an unreadable index means no drafts, not a broken session.
 */
import type { ToolListingExtra, ToolStore } from "../../core/tool-store.ts";
import type { AgentTool } from "../../core/types.ts";
import { bundledToolNames } from "../catalog.ts";
import { createDraftTool, isDraftTool } from "./draft-tool.ts";
import { formatWrittenToolLines, readWrittenEntries, type WrittenToolsEnv } from "./listing.ts";
import { readSpec } from "./tool-index.ts";

/** Registers `draft` unless a bundled tool has its name; returns whether it did. */
export function registerDraft(store: ToolStore, draft: AgentTool): boolean {
  const existing = store.get(draft.name);
  if (existing && !isDraftTool(existing)) return false;
  if (bundledToolNames().includes(draft.name)) return false;
  store.register(draft);
  return true;
}

/**
 * Adds every pending written tool as a draft (when the Worker has a LOADER). `allowed` is the session's
 * tool subset, if it has one: then only drafts it names are added. Returns the names registered.
 */
export async function registerWrittenDrafts(store: ToolStore, env: WrittenToolsEnv, allowed?: readonly string[]): Promise<string[]> {
  const { LOADER: loader, TOOL_SOURCE: bucket } = env;
  if (!loader || !bucket) return [];
  const added: string[] = [];
  try {
    const pending = (await readWrittenEntries(env)).filter((e) => e.status === "pending" && (!allowed || allowed.includes(e.name)));
    const specs = await Promise.all(pending.map((entry) => readSpec(bucket, entry)));
    for (const spec of specs) {
      if (spec && registerDraft(store, createDraftTool(loader, spec, store.name))) added.push(spec.name);
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
      return formatWrittenToolLines(await readWrittenEntries(env), store, env.LOADER !== undefined);
    } catch (err) {
      return [`(written tools could not be listed: ${err instanceof Error ? err.message : String(err)})`];
    }
  };
}
