/**
 * writeTool's flow, called by tools/writeTool.ts: refuse unless WRITE_TOOL_ENABLED is "true" → check the
 * input → (with a LOADER) load the draft once, so a draft that cannot start is never stored → commit
 * source and spec to R2 and a pending row to KV → register the draft in the calling session only (the
 * context's registerDraft capability) → ask for a redeploy. Failures before the commit throw (the
 * pipeline makes them error results) and store nothing. It sees only the env keys in WRITE_TOOL_ENV.
 */
import { readSetting } from "../../config.ts";
import type { AgentToolResult, ToolExecutionContext } from "../../core/index.ts";
import { checkWriteToolInput } from "./checks.ts";
import { createDraftTool, probeDraft } from "./draft-tool.ts";
import { requestRedeploy, type RedeployHookEnv } from "./redeploy-hook.ts";
import type { WriteToolInput } from "./spec.ts";
import type { WrittenToolSummary } from "./index-summary.ts";
import { commitWrittenTool, listSummaries, MAX_INDEX_ROWS, ownsName } from "./tool-index.ts";

export type WriteToolEnv = RedeployHookEnv & {
  WRITE_TOOL_ENABLED?: string;
  TOOL_INDEX?: KVNamespace;
  TOOL_SOURCE?: R2Bucket;
  LOADER?: WorkerLoader;
};

/** The env keys and bindings writeTool declares; its context holds these and nothing else. */
export const WRITE_TOOL_ENV = [
  "WRITE_TOOL_ENABLED",
  "TOOL_INDEX",
  "TOOL_SOURCE",
  "LOADER",
  "REDEPLOY_HOOK_URL",
  "REDEPLOY_HOOK_SECRET",
] as const;

/** Pending drafts one session may hold at once: each is read whole when the session loads. */
export const MAX_DRAFTS_PER_SESSION = 32;

/** One answer for every name a session may not take, so it never learns whose or which version. */
const NAME_TAKEN = "the name is taken; choose another name";

/** Why `name` cannot be written now (the name taken, the index or the session's drafts full), or undefined. */
export function checkIndexBounds(
  name: string,
  summaries: readonly WrittenToolSummary[],
  complete: boolean,
  sessionId: string | undefined,
): string | undefined {
  const lower = name.toLowerCase();
  if (summaries.some((s) => !ownsName(s, sessionId) && s.name.toLowerCase() === lower)) return NAME_TAKEN;
  if (summaries.some((s) => s.name === name)) return undefined; // a new version of a row already counted
  if (!complete || summaries.length >= MAX_INDEX_ROWS) {
    return `the written-tool index is full (${MAX_INDEX_ROWS} tools); an operator must remove rows from TOOL_INDEX before new names can be written. Use the tools you have.`;
  }
  const drafts = summaries.filter((s) => s.status === "pending" && s.author.sessionId === sessionId).length;
  if (drafts >= MAX_DRAFTS_PER_SESSION)
    return `this session already has ${MAX_DRAFTS_PER_SESSION} pending drafts; write a new version of one of them instead of a new name`;
  return undefined;
}

export type WriteToolDeps = { fetch?: typeof fetch; now?: () => Date };

export async function runWriteTool(
  input: WriteToolInput,
  toolCallId: string,
  context: ToolExecutionContext | undefined,
  deps: WriteToolDeps = {},
): Promise<AgentToolResult> {
  const env: WriteToolEnv = context?.env ?? {};
  if (!readSetting(env, "WRITE_TOOL_ENABLED")) {
    throw new Error('writeTool is disabled on this deployment (WRITE_TOOL_ENABLED is not "true"). Use the tools you have.');
  }
  const { TOOL_INDEX: kv, TOOL_SOURCE: bucket } = env;
  if (!kv || !bucket) throw new Error("writeTool needs the TOOL_INDEX (KV) and TOOL_SOURCE (R2) bindings, which this Worker lacks");

  const sessionId = context?.sessionId;
  const { summaries, complete } = await listSummaries(kv);
  // Another session's draft is not this session's business: its name is neither named nor counted.
  const visible = summaries.filter((s) => ownsName(s, sessionId));
  const checked = checkWriteToolInput(input, { bundled: [...(context?.bundledToolNames?.() ?? [])], written: visible.map((s) => s.name) });
  if (!checked.ok) throw new Error(`writeTool refused "${input.name}":\n${checked.problems.map((p) => `- ${p}`).join("\n")}`);
  const { spec } = checked;
  const bound = checkIndexBounds(spec.name, summaries, complete, sessionId);
  if (bound) throw new Error(`writeTool refused "${spec.name}": ${bound}`);

  // Drafts get an isolate per session.
  const scope = sessionId ?? "writeTool";
  if (env.LOADER) {
    const failure = await probeDraft(env.LOADER, spec, scope);
    if (failure) throw new Error(`writeTool refused "${spec.name}": ${failure}`);
  }

  const committed = await commitWrittenTool(
    { TOOL_INDEX: kv, TOOL_SOURCE: bucket },
    spec,
    { sessionId, toolCallId },
    (deps.now ?? (() => new Date()))(),
  );
  if (committed.kind === "name_taken") throw new Error(`writeTool refused "${spec.name}": ${NAME_TAKEN}`);
  const { entry } = committed;

  const live = env.LOADER && context?.registerDraft?.(createDraftTool(env.LOADER, spec, scope));
  const redeploy = await requestRedeploy(env, entry, deps.fetch);

  const lines = [
    `Wrote tool "${spec.name}" version ${entry.version} (sha256 ${entry.hash.slice(0, 12)}); status: pending redeploy.`,
    live
      ? `It is callable now in this session as a sandboxed draft (no network, no bindings): call ${spec.name}.`
      : env.LOADER
        ? "It is not callable in this session (a bundled tool of that name takes precedence)."
        : "This Worker has no draft runtime: the tool becomes callable after the redeploy ships it.",
    redeploy.requested ? `Redeploy requested (the hook answered HTTP ${redeploy.status}).` : `Redeploy not requested: ${redeploy.reason}.`,
  ];
  const result: AgentToolResult = {
    content: [{ type: "text", text: lines.join("\n") }],
    details: {
      name: spec.name,
      version: entry.version,
      hash: entry.hash,
      status: entry.status,
      sourceKey: entry.sourceKey,
      draft: live,
      redeploy,
    },
    terminate: false,
  };
  if (live) result.addedToolNames = [spec.name];
  return result;
}
