/**
 * Typed readers for the Worker's string vars: every number, flag and list setting is parsed here, so a
 * var means the same wherever it is read. Called by the HTTP layer, the session and the model selection.
 * Invariants: a reader never throws; blank or malformed text yields the caller's default (a setting is
 * a knob, not input), and a list drops blank items.
 */

/** A positive number (fractions allowed, e.g. "0.5" days), else `fallback`. */
export function readPositiveNumber(raw: string | undefined, fallback: number): number {
  const text = raw?.trim() ?? "";
  if (!/^\d+(\.\d+)?$/.test(text)) return fallback;
  const value = Number(text);
  return value > 0 ? value : fallback;
}

/** A positive integer (counts, milliseconds, tokens), else `fallback`. */
export function readPositiveInteger(raw: string | undefined, fallback: number): number {
  const text = raw?.trim() ?? "";
  if (!/^\d{1,15}$/.test(text)) return fallback;
  const value = Number(text);
  return value > 0 ? value : fallback;
}

/** A non-negative number (a delay that may be zero), else `fallback`. */
export function readNonNegativeNumber(raw: string | undefined, fallback: number): number {
  const text = raw?.trim() ?? "";
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : fallback;
}

/** `"true"` (any case, surrounding blanks ignored) is on; anything else, unset included, is off. */
export function readFlag(raw: string | undefined): boolean {
  return raw?.trim().toLowerCase() === "true";
}

/** A comma-separated list, items trimmed, blanks dropped; unset means empty. */
export function readList(raw: string | undefined): string[] {
  return (raw ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * Bytes one session may store (SESSION_MAX_BYTES): past it, new input is refused with a 413 instead of
 * growing for the session's whole idle lifetime (60 messages of 1 MB a minute for 30 days otherwise).
 */
export const DEFAULT_SESSION_MAX_BYTES = 200_000_000;

export const readSessionMaxBytes = (env: { SESSION_MAX_BYTES?: string | undefined }): number =>
  readPositiveInteger(env.SESSION_MAX_BYTES, DEFAULT_SESSION_MAX_BYTES);

/** How deep sub-agents may nest (MAX_SUBAGENT_DEPTH): a session at this depth is offered no sub-agents. */
export const DEFAULT_MAX_SUBAGENT_DEPTH = 2;

/** A whole number of levels, zero allowed (no sub-agents at all), else the default. */
export const readMaxSubAgentDepth = (env: { MAX_SUBAGENT_DEPTH?: string | undefined }): number => {
  const text = env.MAX_SUBAGENT_DEPTH?.trim() ?? "";
  return /^\d{1,3}$/.test(text) ? Number(text) : DEFAULT_MAX_SUBAGENT_DEPTH;
};
/** Schedules one session may hold (MAX_SCHEDULES): each is a row and a wake-up, so they are few. */
export const DEFAULT_MAX_SCHEDULES = 100;
/** The shortest interval of an `everyMs` or `cron` schedule (SCHEDULE_MIN_INTERVAL_MS): a minute, as cron. */
export const DEFAULT_SCHEDULE_MIN_INTERVAL_MS = 60_000;

export const readMaxSchedules = (env: { MAX_SCHEDULES?: string | undefined }): number =>
  readPositiveInteger(env.MAX_SCHEDULES, DEFAULT_MAX_SCHEDULES);

export const readScheduleMinIntervalMs = (env: { SCHEDULE_MIN_INTERVAL_MS?: string | undefined }): number =>
  readPositiveInteger(env.SCHEDULE_MIN_INTERVAL_MS, DEFAULT_SCHEDULE_MIN_INTERVAL_MS);

/** Memories one user may keep (MAX_MEMORIES): one more is refused with an error naming the limit. */
export const DEFAULT_MAX_MEMORIES = 1000;

export const readMaxMemories = (env: { MAX_MEMORIES?: string | undefined }): number =>
  readPositiveInteger(env.MAX_MEMORIES, DEFAULT_MAX_MEMORIES);
