/**
 * Firing due schedules, exactly once per due time. Each fire is one storage transaction: the message goes
 * on the input queue (a user message marked with `scheduleId`), the schedule moves to its next due time
 * (or ends), and `scheduleFired` is logged. So a restart before the transaction leaves the schedule due
 * (the next wake fires it), one after it leaves the message queued (the wake starts its run), and a second
 * alarm for the same time finds nothing due. A full input queue stops firing: the schedule stays due and
 * the store asks for a wake soon (SCHEDULE_RETRY_MS). A fire into a spent token budget queues nothing:
 * `scheduleRefused` is logged and the schedule stays, due at its next time (a one-shot at the next UTC
 * day, when a user's daily budget starts again). Called on every wake and alarm (session-alarm.ts).
 */
import { QUEUE_CAPACITY } from "../session/storage/session-queues.ts";
import type { BudgetState } from "../core/index.ts";
import { secondsUntilNextUtcDay } from "../session/run/token-budget.ts";
import type { ScheduleStore } from "./schedule-store.ts";
import type { SessionParts } from "../session/session-parts.ts";

type FiringParts = Pick<SessionParts, "queues" | "sink"> & {
  schedules: ScheduleStore;
  storage: DurableObjectStorage;
  /** A token budget that is spent now, if any (its run would end before any model call). */
  spentBudget?: () => BudgetState | undefined;
};

/** Fires every schedule due at `now` that the input queue has room for; returns how many fired. */
export function fireDueSchedules({ schedules, queues, sink, storage, spentBudget }: FiringParts, now: number): number {
  let fired = 0;
  for (const schedule of schedules.due(now, QUEUE_CAPACITY.input)) {
    const budget = spentBudget?.();
    if (budget) {
      storage.transactionSync(() => {
        const nextRunAt = schedules.postpone(schedule, now, now + secondsUntilNextUtcDay(now) * 1000);
        sink.record(undefined, { type: "scheduleRefused", scheduleId: schedule.id, nextRunAt, budget });
      });
      continue;
    }
    if (queues.isFull("input")) break;
    storage.transactionSync(() => {
      const messageId = crypto.randomUUID();
      queues.offer("input", messageId, {
        role: "user",
        content: [{ type: "text", text: schedule.message }],
        timestamp: now,
        scheduleId: schedule.id,
      });
      schedules.markFired(schedule, now);
      sink.record(undefined, { type: "scheduleFired", scheduleId: schedule.id, messageId });
    });
    fired++;
  }
  return fired;
}
