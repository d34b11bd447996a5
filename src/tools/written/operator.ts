/**
 * The operator's view of one written tool and the operator's veto, for the tool routes (src/http/
 * tool-routes.ts): its index row, stored source and spec, and its checks (writeTool's, run again now,
 * and the redeploy's verdict); rejecting turns a pending row into a rejected one. Reads and writes only
 * the KV index and R2; dropping the draft from its session is the caller's second step.
 */
import { bundledToolNames } from "../catalog.ts";
import { checkWriteToolInput } from "./checks.ts";
import { viewOf, type WrittenToolView, type WrittenToolsEnv } from "./listing.ts";
import type { WrittenToolEntry, WrittenToolSpec, WrittenToolStatus } from "./spec.ts";
import { putEntry, readEntry, readSpec } from "./tool-index.ts";

export type WrittenToolInspection = WrittenToolView & {
  source: string | null;
  spec: WrittenToolSpec | null;
  checks: {
    /** writeTool's checks on the stored spec, run again now (bundled names may have changed since). */
    writeTool: { ok: boolean; problems: string[] };
    /** The redeploy's verdict: not yet checked while pending. */
    redeploy: { state: "not yet checked" } | { state: "passed"; deployedAt?: string } | { state: "failed"; error: string };
  };
};

export type RejectOutcome =
  | { kind: "rejected"; entry: WrittenToolEntry }
  | { kind: "not_found" }
  | { kind: "not_pending"; status: WrittenToolStatus };

export async function inspectWrittenTool(env: WrittenToolsEnv, name: string): Promise<WrittenToolInspection | undefined> {
  if (!env.TOOL_INDEX) return undefined;
  const entry = await readEntry(env.TOOL_INDEX, name);
  if (!entry) return undefined;
  const [object, spec] = await Promise.all([
    env.TOOL_SOURCE?.get(entry.sourceKey),
    env.TOOL_SOURCE ? readSpec(env.TOOL_SOURCE, entry) : undefined,
  ]);
  const source = object ? await object.text() : null;
  const checked = spec
    ? checkWriteToolInput(spec, { bundled: bundledToolNames(), written: [] })
    : { ok: false as const, problems: [`spec ${entry.specKey} is missing`] };
  const redeploy: WrittenToolInspection["checks"]["redeploy"] =
    entry.status === "pending"
      ? { state: "not yet checked" }
      : entry.status === "deployed"
        ? { state: "passed", ...(entry.deployedAt ? { deployedAt: entry.deployedAt } : {}) }
        : { state: "failed", error: entry.error ?? "rejected" };
  return {
    ...viewOf(entry, env.LOADER !== undefined),
    source,
    spec: spec ?? null,
    checks: { writeTool: checked.ok ? { ok: true, problems: [] } : { ok: false, problems: checked.problems }, redeploy },
  };
}

/** Marks a pending written tool rejected by an operator, with the reason; anything else is left alone. */
export async function rejectWrittenTool(env: WrittenToolsEnv, name: string, reason: string | undefined, now: Date): Promise<RejectOutcome> {
  if (!env.TOOL_INDEX) return { kind: "not_found" };
  const entry = await readEntry(env.TOOL_INDEX, name);
  if (!entry) return { kind: "not_found" };
  if (entry.status !== "pending") return { kind: "not_pending", status: entry.status };
  const rejected: WrittenToolEntry = {
    ...entry,
    status: "rejected",
    error: `Rejected by an operator${reason?.trim() ? `: ${reason.trim()}` : ""}`,
    rejectedAt: now.toISOString(),
  };
  await putEntry(env.TOOL_INDEX, rejected);
  return { kind: "rejected", entry: rejected };
}
