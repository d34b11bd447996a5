/**
 * The one table from a session's refusal reason to its HTTP answer, and settle(), which every session
 * route applies: values pass through, refusals become ApiErrors with the table's status and code.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors.ts";
import { FAILURE_STATUS, settle } from "../../src/http/failure-status.ts";
import { ok, refuse } from "../../src/session/session-result.ts";

describe("failure → status table", () => {
  it("answers every refusal with a 4xx, never a 5xx", () => {
    const statuses = Object.values(FAILURE_STATUS).map((answer) => answer.status);
    expect(statuses.filter((status) => status < 400 || status >= 500)).toEqual([]);
  });

  it("passes a success value through unchanged", () => {
    expect(settle(ok({ messageId: "m1" }))).toEqual({ messageId: "m1" });
  });

  it("turns a full queue into 429 queue_full with Retry-After, keeping the session's message", () => {
    let error: unknown;
    try {
      settle(refuse("queue_full", "Input queue is full (16 pending); retry later"));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 429,
      code: "queue_full",
      retryAfterSeconds: 1,
      message: "Input queue is full (16 pending); retry later",
    });
  });

  it("answers a wrong key as an unknown session (404), apart from a missing key (401) and a shut-down session (410)", () => {
    const statusOf = (reason: keyof typeof FAILURE_STATUS) => {
      try {
        settle(refuse(reason, "x"));
      } catch (err) {
        return (err as ApiError).status;
      }
      return 200;
    };
    expect([statusOf("missing_key"), statusOf("wrong_key"), statusOf("shut_down"), statusOf("not_found")]).toEqual([401, 404, 410, 404]);
  });
});
