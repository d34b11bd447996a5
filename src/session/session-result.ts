/**
 * What a session operation answers over RPC: a value, or a domain failure naming why it was refused.
 * A reason names no HTTP status; the router maps each to a status in one table (src/http/failure-status.ts).
 * Failures are values, never exceptions thrown across RPC. One operation answers otherwise:
 * AgentSession.completeMcpAuth returns the OAuth callback's AuthCompletion, status included, as the
 * Worker's McpCredentials object does (src/mcp/oauth/oauth-completion.ts).
 */
export type SessionFailureReason =
  | "already_exists"
  | "not_found"
  | "missing_key"
  | "wrong_key"
  | "shut_down"
  | "queue_full"
  | "run_active"
  | "nothing_to_continue"
  | "unknown_approval"
  | "already_decided"
  | "unknown_tool"
  | "unknown_elicitation"
  | "elicitation_closed"
  | "invalid_elicitation_content"
  | "over_budget"
  | "budget_exceeded"
  | "bad_request"
  | "url_not_allowed"
  | "name_taken"
  | "too_many"
  | "sub_agent_input"
  | "bad_schedule"
  | "too_many_schedules"
  | "unknown_schedule"
  | "idempotency_mismatch"
  | "idempotency_in_progress";

/** `retryAfterSeconds`: when trying again can succeed, if the reason's own status table gives no time. */
export type SessionFailure = { ok: false; reason: SessionFailureReason; message: string; retryAfterSeconds?: number };
export type SessionResult<T> = { ok: true; value: T } | SessionFailure;

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

export const refuse = (reason: SessionFailureReason, message: string): SessionFailure => ({ ok: false, reason, message });
