/**
 * When the client SDK sends a state-changing call again: under its Idempotency-Key (one per call, kept
 * across attempts) a retry can only get the first answer, never a second message. Retried: a network
 * failure, a 5xx, and a 409 saying the first attempt is still being answered. Pure; called by client.ts.
 * Invariants: attempts are bounded and each wait is capped, so a dead server fails the call in seconds.
 */
import type { ApiClientError } from "./errors.ts";

/** Attempts per call, the first included. */
export const MAX_ATTEMPTS = 4;
/** The first retry waits this long; each further one twice as long, up to MAX_RETRY_WAIT_MS. */
export const FIRST_RETRY_WAIT_MS = 250;
export const MAX_RETRY_WAIT_MS = 2_000;

export function isRetryable(error: ApiClientError): boolean {
  return error.status === 0 || error.status >= 500 || error.code === "idempotency_in_progress";
}

/** The wait before attempt `attempt` (2 = the first retry); a server's Retry-After is honoured within the cap. */
export function retryWaitMs(attempt: number, error: ApiClientError): number {
  const backoff = FIRST_RETRY_WAIT_MS * 2 ** (attempt - 2);
  const asked = error.retryAfterSeconds === undefined ? 0 : error.retryAfterSeconds * 1_000;
  return Math.min(MAX_RETRY_WAIT_MS, Math.max(backoff, asked));
}

/** A new Idempotency-Key: random, so two calls never share one. */
export const newIdempotencyKey = (): string => crypto.randomUUID();
