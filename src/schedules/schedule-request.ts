/**
 * The body of POST /v1/sessions/:id/schedules and the arguments of the `schedule` tool, as one zod schema,
 * so a person and the model are held to the same shape; checkSchedule (schedule-spec.ts) then checks the
 * meaning (exactly one timing field, limits, the minimum interval). Used by the sessions route and the tool.
 */
import * as z from "zod";
import { lazySchema } from "../lazy-schema.ts";
import { MAX_SCHEDULE_MESSAGE_CHARS, MAX_SCHEDULE_NAME_CHARS } from "./schedule-spec.ts";

// Built on first use (src/lazy-schema.ts): start-up builds no schema.
export const scheduleRequest = lazySchema(() =>
  z.strictObject({
    message: z
      .string()
      .min(1, "must not be empty")
      .max(MAX_SCHEDULE_MESSAGE_CHARS)
      .describe("The user message the session receives when the schedule is due"),
    at: z
      .union([z.string().max(64), z.number().int()])
      .optional()
      .describe("When to run once: ISO 8601 with a time zone (e.g. 2030-01-01T07:00:00Z) or epoch milliseconds"),
    delayMs: z.number().int().optional().describe("Run once, this many milliseconds from now"),
    cron: z
      .string()
      .max(200)
      .optional()
      .describe("Run repeatedly on a 5-field cron expression in UTC (minute hour day-of-month month day-of-week)"),
    everyMs: z.number().int().optional().describe("Run repeatedly, every this many milliseconds"),
    name: z.string().max(MAX_SCHEDULE_NAME_CHARS).optional().describe("A short label for listings"),
  }),
);

export type ScheduleRequestBody = z.infer<ReturnType<typeof scheduleRequest>>;
