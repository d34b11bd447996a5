/**
 * One LLM call's attempts, shared by the OpenAI and Workers AI adapters: retries of retryable LlmErrors
 * (the server's Retry-After honoured, each wait capped by the policy), each retry told to the caller's
 * onRetry, and the final error: `aborted` when the caller's signal fired, a
 * non-retryable "gave up after N attempts" when retries ran out. Invariant: text delivered by any
 * attempt is visible to the next through `delivered()`, so an adapter never retries after text was sent.
 */
import type { LlmCallOptions } from "../core/index.ts";
import { abortedError, LlmError } from "./llm-error.ts";
import { DEFAULT_INITIAL_RETRY_DELAY_MS, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_DELAY_MS, withRetries, type RetryPolicy } from "./retry.ts";

export type LlmRetryOptions = {
  maxRetries?: number;
  initialRetryDelayMs?: number;
  maxRetryDelayMs?: number;
};

/** What an attempt gets: `deliver` passes a text delta on and remembers that text went out. */
export type AttemptText = { deliver: (text: string) => void; delivered: () => boolean };

export function llmRetryPolicy(options: LlmRetryOptions): RetryPolicy {
  return {
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    initialDelayMs: options.initialRetryDelayMs ?? DEFAULT_INITIAL_RETRY_DELAY_MS,
    maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS,
  };
}

export async function runLlmAttempts<T>(
  policy: RetryPolicy,
  { signal, onTextDelta, onRetry }: LlmCallOptions,
  attempt: (text: AttemptText) => Promise<T>,
): Promise<T> {
  let delivered = false;
  const text: AttemptText = {
    deliver: (delta) => {
      delivered = true;
      onTextDelta?.(delta);
    },
    delivered: () => delivered,
  };
  let attempts = 0;
  try {
    return await withRetries(
      (attemptNumber) => {
        attempts = attemptNumber;
        return attempt(text);
      },
      policy,
      {
        decide: (err) => (err instanceof LlmError && err.retryable ? { retry: true, retryAfterMs: err.retryAfterMs } : { retry: false }),
        onRetry: (info) => onRetry?.(info),
      },
      signal,
    );
  } catch (err) {
    if (signal?.aborted) throw err instanceof LlmError && err.kind === "aborted" ? err : abortedError(err);
    if (err instanceof LlmError && err.retryable && attempts > 1) {
      throw new LlmError(`${err.message} (gave up after ${attempts} attempts)`, {
        kind: err.kind,
        retryable: false,
        status: err.status,
        cause: err,
      });
    }
    throw err;
  }
}
