/**
 * writeTool's flow, called by tools/writeTool.ts: refuse unless WRITE_TOOL_ENABLED is "true" → check the
 * input → (with a LOADER) load the draft once, so a draft that cannot start is never stored → commit
 * source and spec to R2 and a pending row to KV → register the draft in the calling session only (the
 * context's registerDraft capability) → ask for a redeploy. Failures before the commit throw (the
 * pipeline makes them error results) and store nothing. It sees only the env keys in WRITE_TOOL_ENV.
 */
import type { AgentToolResult, ToolExecutionContext } from "../../core/types.ts";
import { bundledToolNames } from "../catalog.ts";
import { checkWriteToolInput } from "./checks.ts";
import { createDraftTool, probeDraft } from "./draft-tool.ts";
import { requestRedeploy, type RedeployHookEnv } from "./redeploy-hook.ts";
import type { WriteToolInput } from "./spec.ts";
import { commitWrittenTool, listEntries } from "./tool-index.ts";

export type WriteToolEnv = RedeployHookEnv & {
  WRITE_TOOL_ENABLED?: string;
  TOOL_INDEX?: KVNamespace;
  TOOL_SOURCE?: R2Bucket;
  LOADER?: WorkerLoader;
};

/** The env keys and bindings writeTool declares; its context holds these and nothing else. */
export const WRITE_TOOL_ENV = ["WRITE_TOOL_ENABLED", "TOOL_INDEX", "TOOL_SOURCE", "LOADER", "REDEPLOY_HOOK_URL", "REDEPLOY_HOOK_SECRET"] as const;

export type WriteToolDeps = { fetch?: typeof fetch; now?: () => Date };

export async function runWriteTool(
  input: WriteToolInput,
  toolCallId: string,
  context: ToolExecutionContext | undefined,
  deps: WriteToolDeps = {},
): Promise<AgentToolResult> {
  const env: WriteToolEnv = context?.env ?? {};
  if (env.WRITE_TOOL_ENABLED !== "true") {
    throw new Error('writeTool is disabled on this deployment (WRITE_TOOL_ENABLED is not "true"). Use the tools you have.');
  }
  const { TOOL_INDEX: kv, TOOL_SOURCE: bucket } = env;
  if (!kv || !bucket) throw new Error("writeTool needs the TOOL_INDEX (KV) and TOOL_SOURCE (R2) bindings, which this Worker lacks");

  const written = (await listEntries(kv)).map((e) => e.name);
  const checked = checkWriteToolInput(input, { bundled: bundledToolNames(), written });
  if (!checked.ok) throw new Error(`writeTool refused "${input.name}":\n${checked.problems.map((p) => `- ${p}`).join("\n")}`);
  const { spec } = checked;

  const sessionId = context?.sessionId;
  // Drafts get an isolate per session.
  const scope = sessionId ?? "writeTool";
  if (env.LOADER) {
    const failure = await probeDraft(env.LOADER, spec, scope);
    if (failure) throw new Error(`writeTool refused "${spec.name}": ${failure}`);
  }

  const { entry } = await commitWrittenTool({ TOOL_INDEX: kv, TOOL_SOURCE: bucket }, spec, { sessionId, toolCallId }, (deps.now ?? (() => new Date()))());

  const live = env.LOADER !== undefined && context?.registerDraft !== undefined && context.registerDraft(createDraftTool(env.LOADER, spec, scope));
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
    details: { name: spec.name, version: entry.version, hash: entry.hash, status: entry.status, sourceKey: entry.sourceKey, draft: live, redeploy },
    terminate: false,
  };
  if (live) result.addedToolNames = [spec.name];
  return result;
}
