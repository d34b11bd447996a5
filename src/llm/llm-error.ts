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
  cause?: unknown;
};

export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(message: string, details: LlmErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "LlmError";
    this.kind = details.kind;
    this.retryable = details.retryable;
    if (details.status !== undefined) this.status = details.status;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }
}

export function abortedError(cause?: unknown): LlmError {
  return new LlmError("The LLM request was aborted", { kind: "aborted", retryable: false, cause });
}
