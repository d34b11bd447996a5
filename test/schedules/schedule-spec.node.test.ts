import { describe, expect, it } from "vitest";
import { checkSchedule, nextDueAfter } from "../../src/schedules/schedule-spec.ts";

const NOW = Date.parse("2026-12-01T10:00:00Z");
const limits = { minIntervalMs: 60_000 };

describe("checkSchedule", () => {
  it("needs exactly one of at, delayMs, cron, everyMs", () => {
    expect(checkSchedule({ message: "hi" }, limits, NOW)).toEqual({
      ok: false,
      message: "give exactly one of at, delayMs, cron, everyMs (got none)",
    });
    expect(checkSchedule({ message: "hi", delayMs: 5, everyMs: 60_000 }, limits, NOW)).toMatchObject({
      ok: false,
      message: expect.stringContaining("delayMs, everyMs"),
    });
  });

  it("takes at as ISO 8601 with a zone or as epoch milliseconds", () => {
    expect(checkSchedule({ message: "m", at: "2026-12-01T11:00:00+01:00" }, limits, NOW)).toMatchObject({
      ok: true,
      value: { kind: "at", nextRunAt: NOW },
    });
    expect(checkSchedule({ message: "m", at: NOW + 5000 }, limits, NOW)).toMatchObject({
      ok: true,
      value: { kind: "at", nextRunAt: NOW + 5000 },
    });
    expect(checkSchedule({ message: "m", at: "2026-12-01T11:00:00" }, limits, NOW).ok).toBe(false);
    expect(checkSchedule({ message: "m", at: "tomorrow" }, limits, NOW).ok).toBe(false);
  });

  it("refuses an at in the past, but not one a clock's skew away", () => {
    expect(checkSchedule({ message: "m", at: NOW - 3_600_000 }, limits, NOW)).toMatchObject({
      ok: false,
      message: expect.stringContaining("in the past"),
    });
    expect(checkSchedule({ message: "m", at: NOW - 5_000 }, limits, NOW)).toMatchObject({ ok: true, value: { nextRunAt: NOW } });
  });

  it("turns delayMs into a one-shot due time", () => {
    expect(checkSchedule({ message: "m", delayMs: 90_000, name: "later" }, limits, NOW)).toEqual({
      ok: true,
      value: { kind: "at", spec: "2026-12-01T10:01:30.000Z", message: "m", name: "later", nextRunAt: NOW + 90_000 },
    });
    expect(checkSchedule({ message: "m", delayMs: -1 }, limits, NOW).ok).toBe(false);
    expect(checkSchedule({ message: "m", delayMs: 1.5 }, limits, NOW).ok).toBe(false);
  });

  it("holds everyMs and cron to the minimum interval", () => {
    expect(checkSchedule({ message: "m", everyMs: 59_999 }, limits, NOW)).toMatchObject({
      ok: false,
      message: expect.stringContaining("at least 60000 ms"),
    });
    expect(checkSchedule({ message: "m", everyMs: 60_000 }, limits, NOW)).toMatchObject({
      ok: true,
      value: { kind: "every", nextRunAt: NOW + 60_000 },
    });
    expect(checkSchedule({ message: "m", cron: "* * * * *" }, limits, NOW)).toMatchObject({
      ok: true,
      value: { kind: "cron", nextRunAt: NOW + 60_000 },
    });
    expect(checkSchedule({ message: "m", cron: "0,1 * * * *" }, { minIntervalMs: 120_000 }, NOW)).toMatchObject({
      ok: false,
      message: expect.stringContaining("every 60000 ms"),
    });
  });

  it("names a bad cron field", () => {
    expect(checkSchedule({ message: "m", cron: "* * * 13 *" }, limits, NOW)).toMatchObject({
      ok: false,
      message: expect.stringContaining("month"),
    });
  });

  it("refuses an empty or oversized message", () => {
    expect(checkSchedule({ message: " ", delayMs: 0 }, limits, NOW).ok).toBe(false);
    expect(checkSchedule({ message: "x".repeat(8001), delayMs: 0 }, limits, NOW).ok).toBe(false);
  });
});

describe("nextDueAfter", () => {
  it("ends a one-shot schedule", () => {
    expect(nextDueAfter("at", "2026-12-01T10:00:00.000Z", NOW, NOW)).toBeUndefined();
  });

  it("steps an interval from its due time, not from when it fired", () => {
    expect(nextDueAfter("every", "60000", NOW, NOW + 1_500)).toBe(NOW + 60_000);
  });

  it("skips the due times a late fire missed instead of firing once for each", () => {
    expect(nextDueAfter("every", "60000", NOW, NOW + 5 * 60_000 + 10)).toBe(NOW + 6 * 60_000);
    expect(nextDueAfter("cron", "0 * * * *", NOW, NOW + 3 * 3_600_000 + 5)).toBe(NOW + 4 * 3_600_000);
  });
});
