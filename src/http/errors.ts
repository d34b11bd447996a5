/**
 * Errors across HTTP: one ApiError type, mapped to `{error:{code,message}}` in one place (`errorResponse`).
 * Session methods return `ApiFailure` values instead of throwing across RPC; the router rethrows them.
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
  | "queue_full"
  | "internal";

export type ApiFailure = { error: { status: number; code: ApiErrorCode; message: string; retryAfterSeconds?: number } };

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

export const failure = (status: number, code: ApiErrorCode, message: string, retryAfterSeconds?: number): ApiFailure => ({
  error: retryAfterSeconds === undefined ? { status, code, message } : { status, code, message, retryAfterSeconds },
});

export function isFailure(value: unknown): value is ApiFailure {
  return typeof value === "object" && value !== null && "error" in value && typeof (value as ApiFailure).error?.status === "number";
}

/** Unwraps a session result, throwing its failure as an ApiError for the router's error handler. */
export function unwrap<T>(value: T): Exclude<T, ApiFailure> {
  if (isFailure(value)) {
    const { status, code, message, retryAfterSeconds } = value.error;
    throw new ApiError(status, code, message, retryAfterSeconds);
  }
  return value as Exclude<T, ApiFailure>;
}

export function errorResponse(err: ApiError): Response {
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
  if (err.retryAfterSeconds !== undefined) headers["retry-after"] = String(err.retryAfterSeconds);
  return new Response(JSON.stringify({ error: { code: err.code, message: err.message } }), { status: err.status, headers });
}
