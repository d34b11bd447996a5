import { describe, expect, it } from "vitest";
import {
  backoffDelayMs,
  isRetryableStatus,
  parseRetryAfterMs,
  retryDelayMs,
  sleep,
  withRetries,
  type RetryPolicy,
} from "../../src/llm/retry.ts";

const policy = (overrides: Partial<RetryPolicy> = {}): RetryPolicy => ({
  maxRetries: 3,
  initialDelayMs: 100,
  maxDelayMs: 30_000,
  ...overrides,
});

describe("parseRetryAfterMs", () => {
  it("reads Retry-After in seconds", () => {
    expect(parseRetryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2_000);
  });

  it("reads Retry-After as an HTTP date relative to now", () => {
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    expect(parseRetryAfterMs(new Headers({ "retry-after": "Wed, 21 Oct 2026 07:28:05 GMT" }), now)).toBe(5_000);
  });

  it("treats a date in the past as no wait", () => {
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    expect(parseRetryAfterMs(new Headers({ "retry-after": "Wed, 21 Oct 2026 07:00:00 GMT" }), now)).toBe(0);
  });

  it("prefers retry-after-ms to Retry-After", () => {
    expect(parseRetryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
  });

  it("ignores a header it cannot read", () => {
    expect(parseRetryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfterMs(new Headers())).toBeUndefined();
  });
});

describe("retry waits", () => {
  it("doubles the backoff with each retry, jitter keeping it between half and all of the step", () => {
    expect(backoffDelayMs(1, policy({ random: () => 0 }))).toBe(50);
    expect(backoffDelayMs(1, policy({ random: () => 0.999999 }))).toBeCloseTo(100);
    expect(backoffDelayMs(3, policy({ random: () => 0 }))).toBe(200);
  });

  it("caps both backoff and the server's requested wait at maxDelayMs", () => {
    expect(retryDelayMs(20, undefined, policy({ maxDelayMs: 1_000 }))).toBe(1_000);
    expect(retryDelayMs(1, 60_000, policy({ maxDelayMs: 1_000 }))).toBe(1_000);
  });

  it("uses the server's requested wait when it is under the cap", () => {
    expect(retryDelayMs(1, 700, policy())).toBe(700);
  });

  it("counts 408, 429 and 5xx as retryable and other 4xx as final", () => {
    expect([408, 429, 500, 502, 503].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
  });
});

describe("sleep and withRetries", () => {
  it("rejects a sleep with the signal's reason as soon as the signal aborts", async () => {
    const controller = new AbortController();
    const sleeping = sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(sleeping).rejects.toThrow("stop");
  });

  it("stops after maxRetries retries and rethrows the last error", async () => {
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw new Error(`failure ${attempts}`);
    };
    await expect(withRetries(failing, policy({ maxRetries: 2, initialDelayMs: 1 }), { decide: () => ({ retry: true }) })).rejects.toThrow(
      "failure 3",
    );
    expect(attempts).toBe(3);
  });

  it("does not retry what decide calls final", async () => {
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw new Error("final");
    };
    await expect(withRetries(failing, policy(), { decide: () => ({ retry: false }) })).rejects.toThrow("final");
    expect(attempts).toBe(1);
  });
});
