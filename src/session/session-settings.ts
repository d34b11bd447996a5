/**
 * Settings a session may change while it lives (PATCH /v1/sessions/:id): which tools need a human's
 * approval. Stored with the session's settings, read by the approval policy at each call, so a change
 * applies from the next tool call on, also inside a running run.
 */
import type { SessionMeta, SessionSettings } from "./session-meta.ts";
import { ok, refuse, type SessionResult } from "./session-result.ts";

export type SettingsPatch = { requireApproval?: string[] };
export type MutableSettings = { requireApproval: string[] };

export function updateSettings(
  { settings, meta, runs }: { settings: SessionSettings; meta: SessionMeta; runs: { readonly isShutdown: boolean } },
  patch: SettingsPatch,
): SessionResult<MutableSettings> {
  if (runs.isShutdown) return refuse("shut_down", "Session is shut down");
  if (patch.requireApproval) settings.requireApproval = [...new Set(patch.requireApproval)];
  meta.write("session", settings);
  return ok({ requireApproval: settings.requireApproval });
}
