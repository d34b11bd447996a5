/**
 * Settings a session may change while it lives (PATCH /v1/sessions/:id): which tools need a human's
 * approval. Stored with the session's settings, read by the approval policy at each call, so a change
 * applies from the next tool call on, also inside a running run. Only the session knows every tool it
 * has (its drafts, its MCP servers' tools), so it is the one that checks the names.
 */
import type { ToolStore } from "../core/index.ts";
import { isApprovalName } from "./human/approval-names.ts";
import type { SessionMeta, SessionSettings } from "./storage/session-meta.ts";
import { ok, refuse, type SessionResult } from "./session-result.ts";

export type SettingsPatch = { requireApproval?: string[] };
export type MutableSettings = { requireApproval: string[] };

export function updateSettings(
  {
    settings,
    meta,
    runs,
    store,
  }: { settings: SessionSettings; meta: SessionMeta; runs: { readonly isShutdown: boolean }; store: ToolStore },
  patch: SettingsPatch,
): SessionResult<MutableSettings> {
  if (runs.isShutdown) return refuse("shut_down", "Session is shut down");
  const known = { has: (name: string) => store.get(name) !== undefined };
  const unknown = (patch.requireApproval ?? []).filter((name) => !isApprovalName(name, known, settings.mcpServers ?? []));
  if (unknown.length > 0) return refuse("unknown_tool", `Unknown tool(s): ${[...new Set(unknown)].join(", ")}`);
  if (patch.requireApproval) settings.requireApproval = [...new Set(patch.requireApproval)];
  meta.write("session", settings);
  return ok({ requireApproval: settings.requireApproval });
}
