/**
 * Maps whatever one OpenAI SDK attempt threw to an LlmError: HTTP errors keep their status, the server's
 * message and its requested retry wait; connection failures and broken streams are retryable network
 * errors; our own timeout and the caller's abort are told apart by the attempt's flags, not by the SDK.
 * Used by openai-chat-model.ts.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { abortedError, LlmError } from "./llm-error.ts";
import type { AttemptState } from "./attempt-guard.ts";
import { isRetryableStatus, parseRetryAfterMs } from "./retry.ts";


/** The server's own words: `error.message` of an OpenAI error body, else what the SDK made of the body. */
function serverMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | undefined;
  if (body && typeof body.message === "string" && body.message) return body.message;
  const prefix = `${err.status} `;
  return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
}

export function toLlmError(err: unknown, attempt: AttemptState): LlmError {
  if (err instanceof LlmError) return err;
  if (attempt.aborted) return abortedError(err);
  if (attempt.timedOut || err instanceof APIConnectionTimeoutError) {
    return new LlmError(`LLM request timed out: no response data for ${attempt.timeoutMs} ms`, { kind: "timeout", retryable: true, cause: err });
  }
  if (err instanceof APIUserAbortError) return abortedError(err);
  if (err instanceof APIError && typeof err.status === "number") {
    const status = err.status;
    const retryAfterMs = parseRetryAfterMs(err.headers);
    return new LlmError(`LLM request failed with HTTP ${status}: ${serverMessage(err)}`, {
      kind: "http",
      status,
      retryable: isRetryableStatus(status),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      cause: err,
    });
  }
  if (err instanceof APIConnectionError || err instanceof TypeError) {
    // fetch reports refused connections and sockets closed mid-body as TypeError ("fetch failed", "terminated").
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return new LlmError(`LLM connection failed: ${err.message}${cause}`, { kind: "network", retryable: true, cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new LlmError(`LLM response could not be read: ${message}`, { kind: "invalid_response", retryable: false, cause: err });
}
