/**
 * What schedules add to the core's vocabulary, merged into its declarations from here: the
 * `scheduleFired` event, the "schedules" tool capability and its context field, and the `scheduleId`
 * that marks a user message a schedule sent. Types only, importing only the core, so every program that
 * reads those unions can load it (src/host-vocabulary.ts).
 */
import type { BudgetState } from "../core/index.ts";

declare module "../core/events.ts" {
  interface HostEvents {
    /** A schedule's due time came: its message was queued as user message `messageId` (marked with `scheduleId`). */
    scheduleFired: { scheduleId: string; messageId: string };
    /** A schedule came due while a token budget was spent: nothing was queued; it is due again at `nextRunAt`. */
    scheduleRefused: { scheduleId: string; nextRunAt: number; budget: BudgetState };
  }
}

declare module "../core/types.ts" {
  interface UserMessage {
    /** Set when a schedule sent this message (the session's schedules), not a person. */
    scheduleId?: string;
  }
  interface ToolCapabilities {
    schedules: "schedules";
  }
  interface ToolExecutionContext {
    /** Capability "schedules": the calling session's schedules (the schedule tools). */
    schedules?: ScheduleAccess;
  }
}

/**
 * What capability "schedules" gives a tool: the calling session's schedules, checked and bounded exactly
 * as the HTTP routes are. Failures are values naming the problem (a bad spec, the MAX_SCHEDULES limit).
 */
export type ScheduleAccess = {
  create: (request: {
    message: string;
    at?: string | number;
    delayMs?: number;
    cron?: string;
    everyMs?: number;
    name?: string;
  }) => { ok: true; value: { id: string; nextRunAt: number } } | { ok: false; message: string };
  list: () => readonly ScheduleListing[];
  cancel: (scheduleId: string) => boolean;
};

/** One schedule as listings show it (GET …/schedules, the snapshot, the listSchedules tool). */
export type ScheduleListing = {
  id: string;
  name?: string;
  kind: "at" | "cron" | "every";
  spec: string;
  message: string;
  nextRunAt: number;
  lastRunAt: number | null;
  runs: number;
};
