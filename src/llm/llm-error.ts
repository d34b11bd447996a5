/**
 * The one error type the LLM adapters throw. `kind` says what went wrong, `retryable` whether another
 * attempt could help, `retryAfterMs` what the server asked us to wait. The message is written for a
 * person reading the session's `error` event: it names the HTTP status and the server's own message.
 */

export type LlmErrorKind = "http" | "network" | "timeout" | "aborted" | "stream_interrupted" | "invalid_response" | "config";

export type LlmErrorDetails = {
  kind: LlmErrorKind;
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  /** The server's error code, e.g. `context_length_exceeded` (the request is longer than the model's window). */
  code?: string;
  cause?: unknown;
};

export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly code?: string;

  constructor(message: string, details: LlmErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "LlmError";
    this.kind = details.kind;
    this.retryable = details.retryable;
    if (details.status !== undefined) this.status = details.status;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
    if (details.code !== undefined) this.code = details.code;
  }
}

export function abortedError(cause?: unknown): LlmError {
  return new LlmError("The LLM request was aborted", { kind: "aborted", retryable: false, cause });
}
