/**
 * The schedule limits as the Worker reads them (src/config.ts): MAX_SCHEDULES and
 * SCHEDULE_MIN_INTERVAL_MS, each a positive whole number, with its default for anything else.
 */
import { describe, expect, it } from "vitest";
import { readSetting, SETTINGS } from "../../src/config.ts";

const readMaxSchedules = (env: { MAX_SCHEDULES?: string }) => readSetting(env, "MAX_SCHEDULES");
const readScheduleMinIntervalMs = (env: { SCHEDULE_MIN_INTERVAL_MS?: string }) => readSetting(env, "SCHEDULE_MIN_INTERVAL_MS");

describe("schedule limits", () => {
  it("default to 100 schedules and a one-minute interval", () => {
    expect([readMaxSchedules({}), readScheduleMinIntervalMs({})]).toEqual([100, 60_000]);
    expect([SETTINGS.MAX_SCHEDULES.default, SETTINGS.SCHEDULE_MIN_INTERVAL_MS.default]).toEqual([100, 60_000]);
  });

  it("take a positive whole number and ignore anything else", () => {
    expect(readMaxSchedules({ MAX_SCHEDULES: " 7 " })).toBe(7);
    expect(readScheduleMinIntervalMs({ SCHEDULE_MIN_INTERVAL_MS: "1000" })).toBe(1000);
    for (const raw of ["0", "-5", "1.5", "ten", ""]) {
      expect(readMaxSchedules({ MAX_SCHEDULES: raw }), raw).toBe(100);
      expect(readScheduleMinIntervalMs({ SCHEDULE_MIN_INTERVAL_MS: raw }), raw).toBe(60_000);
    }
  });
});
