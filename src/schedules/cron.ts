/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week), evaluated in UTC, as the
 * POSIX crontab defines them: `*`, lists, ranges, steps (`*\/15`, `1-9/2`), month and weekday names, 0 or
 * 7 for Sunday, and the rule that when both day fields are restricted a day matching either fires. Also
 * the usual `@hourly` … `@yearly` shorthands. Parsing is strict: a bad field is named, never guessed.
 */

export type CronSchedule = {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  daysOfWeek: ReadonlySet<number>;
  /** Both day fields restricted: a day matching either one fires (crontab(5)). */
  eitherDay: boolean;
};

export type CronParse = { ok: true; value: CronSchedule } | { ok: false; message: string };

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

const SHORTHANDS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

type FieldSpec = { name: string; min: number; max: number; names?: string[]; namesFrom?: number };

const FIELDS: FieldSpec[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  // 7 is Sunday too; folded to 0 after parsing.
  { name: "day of week", min: 0, max: 7, names: WEEKDAYS, namesFrom: 0 },
];

export function parseCron(expression: string): CronParse {
  const text = SHORTHANDS[expression.trim().toLowerCase()] ?? expression.trim();
  const parts = text.split(/\s+/);
  if (parts.length !== 5)
    return { ok: false, message: `cron needs 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}` };
  const sets: Set<number>[] = [];
  for (const [i, part] of parts.entries()) {
    const field = parseField(part, FIELDS[i]!);
    if (typeof field === "string") return { ok: false, message: `cron ${FIELDS[i]!.name} field "${part.slice(0, 20)}": ${field}` };
    sets.push(field);
  }
  const [minutes, hours, daysOfMonth, months, weekdays] = sets as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (weekdays.delete(7)) weekdays.add(0);
  const schedule: CronSchedule = {
    minutes,
    hours,
    daysOfMonth,
    months,
    daysOfWeek: weekdays,
    eitherDay: !parts[2]!.startsWith("*") && !parts[4]!.startsWith("*"),
  };
  if (nextCronTime(schedule, Date.UTC(2000, 0, 1)) === undefined) return { ok: false, message: "cron never matches a real date" };
  return { ok: true, value: schedule };
}

function parseField(text: string, spec: FieldSpec): Set<number> | string {
  const out = new Set<number>();
  for (const item of text.split(",")) {
    const [range, stepText, extra] = item.split("/");
    if (extra !== undefined || range === undefined || range === "") return "malformed step";
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1 || (stepText !== undefined && !/^\d+$/.test(stepText))) return `bad step "${stepText}"`;
    let low: number;
    let high: number;
    if (range === "*") [low, high] = [spec.min, spec.name === "day of week" ? 6 : spec.max];
    else {
      const [a, b, more] = range.split("-");
      if (more !== undefined) return "malformed range";
      const start = value(a!, spec);
      if (start === undefined) return `bad value "${a}"`;
      const end = b === undefined ? (stepText === undefined ? start : spec.max) : value(b, spec);
      if (end === undefined) return `bad value "${b}"`;
      if (end < start) return `range ${start}-${end} runs backwards`;
      [low, high] = [start, end];
    }
    for (let v = low; v <= high; v += step) out.add(v);
  }
  return out;
}

function value(text: string, spec: FieldSpec): number | undefined {
  const named = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + (spec.namesFrom ?? 0);
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= spec.min && n <= spec.max ? n : undefined;
}

const MINUTE_MS = 60_000;
/** Far enough for any expression that matches at all (Feb 29 on a Monday recurs within 28 years). */
const SEARCH_YEARS = 30;

/** The first matching minute strictly after `afterMs` (UTC), or undefined when none within SEARCH_YEARS. */
export function nextCronTime(schedule: CronSchedule, afterMs: number): number | undefined {
  const t = new Date(Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS);
  const limit = t.getUTCFullYear() + SEARCH_YEARS;
  while (t.getUTCFullYear() <= limit) {
    if (!schedule.months.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!dayMatches(schedule, t)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!schedule.hours.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!schedule.minutes.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    return t.getTime();
  }
  return undefined;
}

function dayMatches(schedule: CronSchedule, t: Date): boolean {
  const dom = schedule.daysOfMonth.has(t.getUTCDate());
  const dow = schedule.daysOfWeek.has(t.getUTCDay());
  return schedule.eitherDay ? dom || dow : dom && dow;
}
