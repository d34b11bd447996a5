/**
 * How written tools are shown: the rows of GET /v1/tools (status pending/rejected/deployed and whether
 * a pending one runs as a draft) and the lines listTools appends, so the model knows each tool's state;
 * a session sees deployed tools and its own drafts only. Reads the KV index's one bounded listing only;
 * never throws on a missing binding (written tools are then simply absent).
 */
import type { ToolStore } from "../../core/index.ts";
import { bundledToolNames } from "../catalog.ts";
import { isDraftTool } from "./draft-tool.ts";
import type { WrittenToolSummary } from "./index-summary.ts";
import type { WrittenToolEntry, WrittenToolStatus } from "./spec.ts";
import { listSummaries, MAX_INDEX_ROWS, type IndexListing } from "./tool-index.ts";

export type WrittenToolsEnv = { TOOL_INDEX?: KVNamespace; TOOL_SOURCE?: R2Bucket; LOADER?: WorkerLoader };

export type WrittenToolView = {
  name: string;
  version: number;
  status: WrittenToolStatus;
  /** Pending, and runnable as a sandboxed draft here (a Worker Loader exists and no bundled tool has the name). */
  draft: boolean;
  label: string;
  description: string;
  hash: string;
  author: WrittenToolEntry["author"];
  writtenAt: string;
  error?: string;
  rejectedAt?: string;
  deployedAt?: string;
};

/** Long redeploy errors (compiler output) are cut in listings; the KV row keeps the whole text. */
const MAX_LISTED_ERROR_CHARS = 600;

/** The index as one bounded listing (tool-index.ts); no binding means no written tools. */
export async function readWrittenSummaries(env: WrittenToolsEnv): Promise<IndexListing> {
  return env.TOOL_INDEX ? listSummaries(env.TOOL_INDEX) : { summaries: [], complete: true };
}

/** Said where a listing stops at the bound. */
export const PARTIAL_LISTING_NOTE = `the written-tool index holds more than ${MAX_INDEX_ROWS} rows; only the first ${MAX_INDEX_ROWS} (by name) are listed`;

/** The listing row of one index entry; `draftRuntime`: the Worker has a LOADER. */
export function viewOf(e: WrittenToolSummary, draftRuntime: boolean): WrittenToolView {
  const view: WrittenToolView = {
    name: e.name,
    version: e.version,
    status: e.status,
    draft: e.status === "pending" && draftRuntime && !bundledToolNames().includes(e.name),
    label: e.label,
    description: e.description,
    hash: e.hash,
    author: e.author,
    writtenAt: e.writtenAt,
  };
  if (e.error !== undefined) view.error = e.error;
  if (e.rejectedAt !== undefined) view.rejectedAt = e.rejectedAt;
  if (e.deployedAt !== undefined) view.deployedAt = e.deployedAt;
  return view;
}

export async function describeWrittenTools(
  env: WrittenToolsEnv,
): Promise<{ draftRuntime: boolean; written: WrittenToolView[]; partial?: string }> {
  const draftRuntime = env.LOADER !== undefined;
  const { summaries, complete } = await readWrittenSummaries(env);
  return { draftRuntime, written: summaries.map((e) => viewOf(e, draftRuntime)), ...(complete ? {} : { partial: PARTIAL_LISTING_NOTE }) };
}

/**
 * What one session may know of written tools: deployed ones (they ship to everyone) and those it wrote
 * itself. Another session's draft (its text and code) never reaches this session's model.
 */
export const visibleToSession = (entries: readonly WrittenToolSummary[], sessionId: string): WrittenToolSummary[] =>
  entries.filter((e) => e.status === "deployed" || e.author.sessionId === sessionId);

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** listTools' extra lines for one store: empty when no tool was ever written. */
export function formatWrittenToolLines(entries: readonly WrittenToolSummary[], store: ToolStore, draftRuntime: boolean): string[] {
  if (entries.length === 0) return [];
  const lines = entries.map((e) => {
    const head = `- ${e.name} (v${e.version}): ${e.label} — ${e.description}`;
    switch (e.status) {
      case "deployed":
        return `${head}\n  status: deployed (a bundled tool once the Worker runs the new deploy)`;
      case "rejected":
        return `${head}\n  status: rejected by the redeploy check; write it again to fix it. Error: ${cut(e.error ?? "unknown", MAX_LISTED_ERROR_CHARS)}`;
      case "pending": {
        const inStore = store.get(e.name);
        const where = isDraftTool(inStore)
          ? "callable now in this session as a sandboxed draft (no network, no bindings)"
          : inStore
            ? "a bundled tool of the same name takes precedence"
            : draftRuntime
              ? "not callable in this session now (a draft belongs to the session that wrote it until deployed)"
              : "not callable until the redeploy ships it (this Worker has no draft runtime)";
        return `${head}\n  status: pending redeploy; ${where}`;
      }
      default: {
        const unknown: never = e.status;
        return `${head}\n  status: ${String(unknown)}`;
      }
    }
  });
  return ["", "Written tools (writeTool) and their state:", ...lines];
}
