/**
 * What a schedule is and when it next fires, the same for the HTTP route and the model's `schedule`
 * tool: exactly one of `at` (ISO 8601 or epoch ms), `delayMs`, `cron` (5 fields, UTC) or `everyMs`,
 * validated against the session's limits. Pure: the clock comes in as `now`. A repeating schedule's next
 * due time always comes from its previous due time, never from when it happened to fire, so a late or
 * repeated alarm neither drifts nor doubles it.
 */
import { nextCronTime, parseCron } from "./cron.ts";

export type ScheduleKind = "at" | "cron" | "every";

/** What a client or the model asks for (the route's body, the tool's arguments). */
export type ScheduleRequest = { message: string; at?: string | number; delayMs?: number; cron?: string; everyMs?: number; name?: string };

/** A validated schedule: `spec` is what the listing shows (the cron text, the interval, the due time). */
export type ScheduleDefinition = { kind: ScheduleKind; spec: string; message: string; name?: string; nextRunAt: number };

export type ScheduleLimits = { minIntervalMs: number };

export type ScheduleCheck = { ok: true; value: ScheduleDefinition } | { ok: false; message: string };

/** A scheduled message is a user message: bounded like one, but a schedule's is meant to be short. */
export const MAX_SCHEDULE_MESSAGE_CHARS = 8_000;
export const MAX_SCHEDULE_NAME_CHARS = 100;
/** One-shot schedules further ahead than this are almost certainly a unit mistake (seconds for ms). */
export const MAX_SCHEDULE_AHEAD_MS = 366 * 86_400_000;
/** An `at` this far in the past is taken as "now" (clock skew between client and Worker), not refused. */
const PAST_TOLERANCE_MS = 60_000;

export function checkSchedule(request: ScheduleRequest, limits: ScheduleLimits, now: number): ScheduleCheck {
  const given = (["at", "delayMs", "cron", "everyMs"] as const).filter((k) => request[k] !== undefined);
  if (given.length !== 1)
    return { ok: false, message: `give exactly one of at, delayMs, cron, everyMs (got ${given.length === 0 ? "none" : given.join(", ")})` };
  if (typeof request.message !== "string" || request.message.trim() === "")
    return { ok: false, message: "message must be a non-empty string" };
  if (request.message.length > MAX_SCHEDULE_MESSAGE_CHARS)
    return { ok: false, message: `message is longer than ${MAX_SCHEDULE_MESSAGE_CHARS} characters` };
  if (request.name !== undefined && (typeof request.name !== "string" || request.name.length > MAX_SCHEDULE_NAME_CHARS)) {
    return { ok: false, message: `name must be a string of at most ${MAX_SCHEDULE_NAME_CHARS} characters` };
  }
  const base = { message: request.message, ...(request.name !== undefined ? { name: request.name } : {}) };
  const minInterval = `${limits.minIntervalMs} ms (SCHEDULE_MIN_INTERVAL_MS)`;
  switch (given[0]!) {
    case "at": {
      const at = parseAt(request.at!);
      if (at === undefined) return { ok: false, message: "at must be an ISO 8601 date-time with a time zone, or epoch milliseconds" };
      if (at < now - PAST_TOLERANCE_MS) return { ok: false, message: `at ${new Date(at).toISOString()} is in the past` };
      if (at > now + MAX_SCHEDULE_AHEAD_MS) return { ok: false, message: "at is more than a year ahead" };
      return { ok: true, value: { ...base, kind: "at", spec: new Date(at).toISOString(), nextRunAt: Math.max(at, now) } };
    }
    case "delayMs": {
      const delay = request.delayMs!;
      if (!Number.isInteger(delay) || delay < 0 || delay > MAX_SCHEDULE_AHEAD_MS)
        return { ok: false, message: "delayMs must be a whole number of milliseconds between 0 and a year" };
      const at = now + delay;
      return { ok: true, value: { ...base, kind: "at", spec: new Date(at).toISOString(), nextRunAt: at } };
    }
    case "everyMs": {
      const every = request.everyMs!;
      if (!Number.isInteger(every) || every > MAX_SCHEDULE_AHEAD_MS)
        return { ok: false, message: "everyMs must be a whole number of milliseconds of at most a year" };
      if (every < limits.minIntervalMs) return { ok: false, message: `everyMs must be at least ${minInterval}` };
      return { ok: true, value: { ...base, kind: "every", spec: String(every), nextRunAt: now + every } };
    }
    case "cron": {
      if (typeof request.cron !== "string" || request.cron.length > 200) return { ok: false, message: "cron must be a string of 5 fields" };
      const parsed = parseCron(request.cron);
      if (!parsed.ok) return parsed;
      const first = nextCronTime(parsed.value, now)!;
      // The shortest gap between consecutive fires, over enough of them to see every field's pattern.
      let gap = Number.POSITIVE_INFINITY;
      for (let t = first, i = 0; i < 64; i++) {
        const next = nextCronTime(parsed.value, t);
        if (next === undefined) break;
        gap = Math.min(gap, next - t);
        t = next;
      }
      if (gap < limits.minIntervalMs)
        return { ok: false, message: `cron fires every ${gap} ms at its most frequent; the minimum is ${minInterval}` };
      return { ok: true, value: { ...base, kind: "cron", spec: request.cron.trim(), nextRunAt: first } };
    }
  }
}

/**
 * The due time after `dueAt` for a repeating schedule (undefined for a one-shot one, which ends). A fire
 * that comes late skips the due times it missed rather than firing once for each.
 */
export function nextDueAfter(kind: ScheduleKind, spec: string, dueAt: number, now: number): number | undefined {
  if (kind === "at") return undefined;
  if (kind === "every") {
    const every = Number(spec);
    const missed = Math.max(0, Math.floor((now - dueAt) / every));
    return dueAt + (missed + 1) * every;
  }
  const parsed = parseCron(spec);
  return parsed.ok ? nextCronTime(parsed.value, Math.max(dueAt, now)) : undefined;
}

function parseAt(at: string | number): number | undefined {
  if (typeof at === "number") return Number.isInteger(at) && at > 0 ? at : undefined;
  if (typeof at !== "string") return undefined;
  if (/^\d{10,}$/.test(at)) return Number(at);
  // A date-time without a zone would be read in the Worker's zone: ask for one.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(at)) return undefined;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? undefined : ms;
}
