/**
 * Errors across HTTP: one ApiError type, mapped to `{error:{code,message}}` in one place (`errorResponse`,
 * called by the app's onError). Session failures become ApiErrors through src/http/failure-status.ts.
 */
export type ApiErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "gone"
  | "payload_too_large"
  | "unsupported_media_type"
  | "misconfigured"
  | "queue_full"
  | "rate_limited"
  | "too_many"
  | "too_many_schedules"
  | "budget_exceeded"
  | "idempotency_key_reused"
  | "idempotency_in_progress"
  | "internal";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export function errorResponse(err: ApiError): Response {
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
  if (err.retryAfterSeconds !== undefined) headers["retry-after"] = String(err.retryAfterSeconds);
  return new Response(JSON.stringify({ error: { code: err.code, message: err.message } }), { status: err.status, headers });
}

/**
 * A credential that does not match: a 403 for the API token; for a session key, the unknown session's
 * 404 (nothing may tell a caller that a session exists). Either is counted per client (rate-limit.ts).
 */
export class WrongCredential extends ApiError {
  constructor(message: string, status: 403 | 404 = 403) {
    super(status, status === 404 ? "not_found" : "forbidden", message);
  }
}
