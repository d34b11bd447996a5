/**
 * Retry policy for LLM requests, free of any SDK: which HTTP statuses are worth another attempt, how long
 * to wait (exponential backoff with jitter, or the server's `retry-after-ms` / `Retry-After`), each wait
 * capped by `maxDelayMs` (the spec's maxRetryDelayMs), and a retry loop whose waits end when the signal aborts.
 * Used by the OpenAI adapter; the adapter decides per error whether it is retryable.
 */

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_INITIAL_RETRY_DELAY_MS = 500;
export const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;

export type RetryPolicy = {
  /** Attempts after the first one. */
  maxRetries: number;
  /** Backoff before the first retry; doubles with each further retry. */
  initialDelayMs: number;
  /** Cap on any single wait, the server's requested wait included. */
  maxDelayMs: number;
  /** Source of jitter in [0, 1); injectable so tests are deterministic. */
  random?: () => number;
};

/** What the adapter says about a failed attempt. */
export type RetryDecision = { retry: boolean; retryAfterMs?: number };

// 408 and 429 are "try later"; 5xx are the server's fault. Other 4xx will fail the same way again.
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

type HeaderSource = { get(name: string): string | null };

/** The server's requested wait: `retry-after-ms` (milliseconds), else `Retry-After` (seconds or an HTTP date). */
export function parseRetryAfterMs(headers: HeaderSource | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms")?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with "equal jitter": half the step is fixed, half random, so waits never collapse to 0. */
export function backoffDelayMs(retryNumber: number, policy: RetryPolicy): number {
  const step = policy.initialDelayMs * 2 ** Math.max(0, retryNumber - 1);
  const random = policy.random ?? Math.random;
  return Math.min(step / 2 + random() * (step / 2), policy.maxDelayMs);
}

/** The wait before retry number `retryNumber` (1-based). */
export function retryDelayMs(retryNumber: number, retryAfterMs: number | undefined, policy: RetryPolicy): number {
  const wanted = retryAfterMs ?? backoffDelayMs(retryNumber, policy);
  return Math.min(Math.max(0, wanted), policy.maxDelayMs);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export type RetryHooks = {
  decide: (err: unknown) => RetryDecision;
  /** Told before each wait; for logging. */
  onRetry?: (info: { retryNumber: number; delayMs: number; error: unknown }) => void;
};

/**
 * Runs `attempt` until it succeeds, `decide` says stop, or the retries are used up; then rethrows the
 * last error. Aborting the signal during a wait rejects at once with the signal's reason.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  policy: RetryPolicy,
  hooks: RetryHooks,
  signal?: AbortSignal,
): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (err) {
      const decision = hooks.decide(err);
      if (!decision.retry || attemptNumber > policy.maxRetries || signal?.aborted) throw err;
      const delayMs = retryDelayMs(attemptNumber, decision.retryAfterMs, policy);
      hooks.onRetry?.({ retryNumber: attemptNumber, delayMs, error: err });
      await sleep(delayMs, signal);
    }
  }
}
