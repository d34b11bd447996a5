/**
 * The session's schedules: the one writer of the `schedules` table. Creating checks the request as the
 * route and the tools both must (schedule-spec.ts) and bounds the table by MAX_SCHEDULES; a fire advances a
 * repeating schedule from its due time (skipping due times a late wake missed) or ends a one-shot one.
 * Called by the schedule firing (schedule-firing.ts), AgentSession's schedule methods and the schedule tools'
 * capability. The next wake-up is one indexed read; nothing here touches more than one row per schedule.
 */
import type { ScheduleListing } from "./schedule-vocabulary.ts";
import { checkSchedule, nextDueAfter, type ScheduleKind, type ScheduleLimits, type ScheduleRequest } from "./schedule-spec.ts";
import { ok, refuse, type SessionResult } from "../session/session-result.ts";

/** How soon a due schedule is tried again when the input queue was full at its due time. */
export const SCHEDULE_RETRY_MS = 1_000;

export type ScheduleStoreLimits = ScheduleLimits & { maxSchedules: number };

type Row = {
  id: string;
  name: string | null;
  kind: ScheduleKind;
  spec: string;
  message: string;
  next_run_at: number;
  last_run_at: number | null;
  runs: number;
};

const COLUMNS = `id, name, kind, spec, message, next_run_at, last_run_at, runs`;

const toListing = (row: Row): ScheduleListing => ({
  id: row.id,
  ...(row.name !== null ? { name: row.name } : {}),
  kind: row.kind,
  spec: row.spec,
  message: row.message,
  nextRunAt: row.next_run_at,
  lastRunAt: row.last_run_at,
  runs: row.runs,
});

export class ScheduleStore {
  constructor(
    private readonly sql: SqlStorage,
    readonly limits: ScheduleStoreLimits,
  ) {}

  /** Checks and stores a schedule; a bad spec or a full table is refused with the reason named. */
  create(request: ScheduleRequest, now: number): SessionResult<{ id: string; nextRunAt: number }> {
    const checked = checkSchedule(request, this.limits, now);
    if (!checked.ok) return refuse("bad_schedule", `Invalid schedule: ${checked.message}`);
    const count = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM schedules`).one().n;
    if (count >= this.limits.maxSchedules) {
      return refuse("too_many_schedules", `This session has ${count} schedules, the most it may hold (MAX_SCHEDULES); cancel one first`);
    }
    const { kind, spec, message, name, nextRunAt } = checked.value;
    const id = crypto.randomUUID();
    this.sql.exec(
      `INSERT INTO schedules (id, name, kind, spec, message, next_run_at, runs, created_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
      id,
      name ?? null,
      kind,
      spec,
      message,
      nextRunAt,
      now,
    );
    return ok({ id, nextRunAt });
  }

  /** Every schedule, soonest first (at most MAX_SCHEDULES rows). */
  list(): ScheduleListing[] {
    return this.sql.exec<Row>(`SELECT ${COLUMNS} FROM schedules ORDER BY next_run_at, id`).toArray().map(toListing);
  }

  /** Removes a schedule; false when there is none by that id. */
  cancel(id: string): boolean {
    return this.sql.exec(`DELETE FROM schedules WHERE id = ?`, id).rowsWritten > 0;
  }

  /** Schedules due at `now`, soonest first, at most `limit` of them. */
  due(now: number, limit: number): ScheduleListing[] {
    return this.sql
      .exec<Row>(`SELECT ${COLUMNS} FROM schedules WHERE next_run_at <= ? ORDER BY next_run_at, id LIMIT ?`, now, limit)
      .toArray()
      .map(toListing);
  }

  /**
   * When the object must wake for its schedules: the soonest due time, or (when one is already overdue,
   * held back by a full input queue) SCHEDULE_RETRY_MS from now; undefined when there are none.
   */
  nextWakeAt(now: number): number | undefined {
    const soonest = this.sql.exec<{ at: number | null }>(`SELECT MIN(next_run_at) AS at FROM schedules`).one().at;
    if (soonest === null) return undefined;
    return soonest <= now ? now + SCHEDULE_RETRY_MS : soonest;
  }

  /** Records the fire of `schedule`'s due time: a repeating one moves to its next due time, a one-shot one ends. */
  /**
   * A due fire was refused (a spent token budget): the schedule stays, due again at its next time after
   * `now`, or for a one-shot at `retryAt`. Its run count does not grow.
   */
  postpone(schedule: ScheduleListing, now: number, retryAt: number): number {
    const next = nextDueAfter(schedule.kind, schedule.spec, schedule.nextRunAt, now) ?? retryAt;
    this.sql.exec(`UPDATE schedules SET next_run_at = ? WHERE id = ?`, next, schedule.id);
    return next;
  }

  markFired(schedule: ScheduleListing, now: number): void {
    const next = nextDueAfter(schedule.kind, schedule.spec, schedule.nextRunAt, now);
    if (next === undefined) {
      this.sql.exec(`DELETE FROM schedules WHERE id = ?`, schedule.id);
      return;
    }
    this.sql.exec(`UPDATE schedules SET next_run_at = ?, last_run_at = ?, runs = runs + 1 WHERE id = ?`, next, now, schedule.id);
  }
}
