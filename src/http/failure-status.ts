/**
 * The one table from a session's domain failure to its HTTP answer, and `settle`, which the routes call
 * on every session result: the value on success, else an ApiError for the app's single onError.
 * The table is exhaustive over SessionFailureReason, so a new reason cannot go unmapped.
 */
import type { SessionFailure, SessionFailureReason, SessionResult } from "../session/session-result.ts";
import { ApiError, WrongCredential, type ApiErrorCode } from "./errors.ts";

type HttpAnswer = { status: number; code: ApiErrorCode; retryAfterSeconds?: number };

export const FAILURE_STATUS = {
  already_exists: { status: 409, code: "conflict" },
  not_found: { status: 404, code: "not_found" },
  missing_key: { status: 401, code: "unauthorized" },
  // A session key that does not open the session: answered as an unknown session is (session-access.ts).
  wrong_key: { status: 404, code: "not_found" },
  shut_down: { status: 410, code: "gone" },
  // A queue drains as runs finish or responses are taken: asking again in a second is reasonable.
  queue_full: { status: 429, code: "queue_full", retryAfterSeconds: 1 },
  run_active: { status: 409, code: "conflict" },
  nothing_to_continue: { status: 409, code: "conflict" },
  unknown_approval: { status: 404, code: "not_found" },
  already_decided: { status: 409, code: "conflict" },
  unknown_tool: { status: 400, code: "bad_request" },
  unknown_elicitation: { status: 404, code: "not_found" },
  elicitation_closed: { status: 409, code: "conflict" },
  invalid_elicitation_content: { status: 400, code: "bad_request" },
  // The session's storage reached SESSION_MAX_BYTES: waiting does not help, a new session does.
  over_budget: { status: 413, code: "payload_too_large" },
  // A token budget is spent (SESSION_TOKEN_BUDGET): waiting does not help, an operator may raise it.
  budget_exceeded: { status: 429, code: "budget_exceeded" },
  bad_request: { status: 400, code: "bad_request" },
  // MCP_ALLOWED_URLS does not list the URL a session asked to attach.
  url_not_allowed: { status: 403, code: "forbidden" },
  name_taken: { status: 409, code: "conflict" },
  // A per-session cap (MCP servers): waiting does not help, removing one does.
  too_many: { status: 429, code: "too_many" },
  // A sub-agent's child session answers its parent's task only; its parent is where to write.
  sub_agent_input: { status: 409, code: "conflict" },
  bad_schedule: { status: 400, code: "bad_request" },
  // MAX_SCHEDULES reached: a slot frees only when one is cancelled or a one-shot fires, so no Retry-After.
  too_many_schedules: { status: 429, code: "too_many_schedules" },
  unknown_schedule: { status: 404, code: "not_found" },
  // The same Idempotency-Key with another request: the key names the first one only.
  idempotency_mismatch: { status: 422, code: "idempotency_key_reused" },
  // The first request under this key is still being answered: a retry in a second gets its answer.
  idempotency_in_progress: { status: 409, code: "idempotency_in_progress", retryAfterSeconds: 1 },
} as const satisfies Record<SessionFailureReason, HttpAnswer>;

/** The success value, or throws the failure as an ApiError with the status the table gives its reason. */
export function settle<R extends SessionResult<unknown>>(result: R): Extract<R, { ok: true }>["value"] {
  if (result.ok) return result.value as Extract<R, { ok: true }>["value"];
  const failure = result as SessionFailure;
  if (failure.reason === "wrong_key") throw new WrongCredential(failure.message, 404);
  const answer: HttpAnswer = FAILURE_STATUS[failure.reason];
  throw new ApiError(answer.status, answer.code, failure.message, failure.retryAfterSeconds ?? answer.retryAfterSeconds);
}
