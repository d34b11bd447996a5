/**
 * Maps whatever one Chat Completions attempt threw to an LlmError: our own HTTP and format errors pass
 * through; our timeout and the caller's abort are told apart by the attempt's flags (fetch reports both
 * as the same abort); anything else fetch or the body read threw is a dropped or refused connection,
 * retryable. Used by openai-chat-model.ts.
 */
import { abortedError, LlmError } from "./llm-error.ts";
import type { AttemptState } from "./attempt-guard.ts";

/** The endpoint as an error may name it: no user info, query or fragment (they may carry credentials). */
const shownUrl = (url: string) => (URL.canParse(url) ? ((u) => `${u.origin}${u.pathname}`)(new URL(url)) : "the configured URL");

export function toLlmError(err: unknown, attempt: AttemptState, url?: string): LlmError {
  if (err instanceof LlmError) return err;
  if (attempt.aborted) return abortedError(err);
  if (attempt.timedOut) {
    return new LlmError(`LLM request timed out: no response data for ${attempt.timeoutMs} ms`, {
      kind: "timeout",
      retryable: true,
      cause: err,
    });
  }
  // fetch reports refused connections and sockets closed mid-body as TypeError ("fetch failed", "Network connection lost").
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
  const to = url === undefined ? "" : ` (POST ${shownUrl(url)})`;
  return new LlmError(`LLM connection failed: ${message}${cause}${to}`, { kind: "network", retryable: true, cause: err });
}
