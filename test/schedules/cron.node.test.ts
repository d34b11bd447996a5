import { describe, expect, it } from "vitest";
import { nextCronTime, parseCron } from "../../src/schedules/cron.ts";

const utc = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().replace(":00.000Z", "Z"));

/** The next `count` fire times of an expression after `from`. */
function fires(expression: string, from: string, count = 3): (string | undefined)[] {
  const parsed = parseCron(expression);
  if (!parsed.ok) throw new Error(parsed.message);
  const out: (string | undefined)[] = [];
  let t = utc(from);
  for (let i = 0; i < count; i++) {
    const next = nextCronTime(parsed.value, t);
    out.push(iso(next));
    if (next === undefined) break;
    t = next;
  }
  return out;
}

describe("cron", () => {
  it("fires every minute for five stars, strictly after the given time", () => {
    expect(fires("* * * * *", "2026-12-01T10:00:00Z")).toEqual(["2026-12-01T10:01Z", "2026-12-01T10:02Z", "2026-12-01T10:03Z"]);
    expect(fires("* * * * *", "2026-12-01T10:00:30Z", 1)).toEqual(["2026-12-01T10:01Z"]);
  });

  it("reads lists, ranges and steps", () => {
    expect(fires("*/15 * * * *", "2026-12-01T10:07:00Z")).toEqual(["2026-12-01T10:15Z", "2026-12-01T10:30Z", "2026-12-01T10:45Z"]);
    expect(fires("0 9-17/4 * * *", "2026-12-01T00:00:00Z")).toEqual(["2026-12-01T09:00Z", "2026-12-01T13:00Z", "2026-12-01T17:00Z"]);
    expect(fires("5,35 7 * * *", "2026-12-01T07:10:00Z", 2)).toEqual(["2026-12-01T07:35Z", "2026-12-02T07:05Z"]);
    expect(fires("10/20 * * * *", "2026-12-01T10:00:00Z")).toEqual(["2026-12-01T10:10Z", "2026-12-01T10:30Z", "2026-12-01T10:50Z"]);
  });

  it("reads month and weekday names, and 7 as Sunday", () => {
    // 2026-12-06 is a Sunday.
    expect(fires("0 7 * * sun", "2026-12-01T00:00:00Z", 1)).toEqual(["2026-12-06T07:00Z"]);
    expect(fires("0 7 * * 7", "2026-12-01T00:00:00Z", 1)).toEqual(["2026-12-06T07:00Z"]);
    expect(fires("0 0 1 JAN,jul *", "2026-12-01T00:00:00Z", 2)).toEqual(["2027-01-01T00:00Z", "2027-07-01T00:00Z"]);
    expect(fires("0 9 * * MON-FRI", "2026-12-04T10:00:00Z", 2)).toEqual(["2026-12-07T09:00Z", "2026-12-08T09:00Z"]);
  });

  it("fires on a day matching either day field when both are restricted", () => {
    // The 13th, or any Friday: 2026-12-04 is a Friday, then Dec 11 (Fri), Dec 13 (the 13th).
    expect(fires("0 0 13 * 5", "2026-12-01T00:00:00Z")).toEqual(["2026-12-04T00:00Z", "2026-12-11T00:00Z", "2026-12-13T00:00Z"]);
    // With a starred day-of-month only the weekday counts.
    expect(fires("0 0 */1 * 5", "2026-12-01T00:00:00Z", 2)).toEqual(["2026-12-04T00:00Z", "2026-12-11T00:00Z"]);
  });

  it("skips months too short for the day, and finds Feb 29", () => {
    expect(fires("0 12 31 * *", "2026-12-01T00:00:00Z", 3)).toEqual(["2026-12-31T12:00Z", "2027-01-31T12:00Z", "2027-03-31T12:00Z"]);
    expect(fires("0 0 29 2 *", "2026-12-01T00:00:00Z", 1)).toEqual(["2028-02-29T00:00Z"]);
  });

  it("understands the @ shorthands", () => {
    expect(fires("@daily", "2026-12-01T10:00:00Z", 1)).toEqual(["2026-12-02T00:00Z"]);
    expect(fires("@hourly", "2026-12-01T10:00:00Z", 1)).toEqual(["2026-12-01T11:00Z"]);
    expect(fires("@weekly", "2026-12-01T10:00:00Z", 1)).toEqual(["2026-12-06T00:00Z"]);
  });

  it.each([
    ["* * * *", "5 fields"],
    ["60 * * * *", "minute"],
    ["* 24 * * *", "hour"],
    ["* * 0 * *", "day of month"],
    ["* * * 13 *", "month"],
    ["* * * * 8", "day of week"],
    ["5-1 * * * *", "backwards"],
    ["*/0 * * * *", "step"],
    ["a * * * *", "minute"],
    ["0 0 30 2 *", "never matches"],
  ])("refuses %s, naming what is wrong", (expression, named) => {
    const parsed = parseCron(expression);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(named);
  });
});
