/**
 * The object's one alarm, and what waking up does. Waking (the constructor, the alarm) fires due schedules
 * and starts a run for input left pending. The alarm is planned here alone: every RUN_HEARTBEAT_MS while a
 * run or an approval waits (it keeps the object alive and resumes it after a restart), else at the next
 * schedule, else at the idle deadline, when the session is told it has expired (SESSION_IDLE_TTL_DAYS
 * after its last activity) and erases itself.
 */
import { sessionIdleTtlMs } from "../config.ts";
import { fireDueSchedules } from "../schedules/schedule-firing.ts";
import type { Session } from "./session.ts";
import { isSpent, sessionBudget, tighter } from "./run/token-budget.ts";

/** While a run is active an alarm fires this often: it keeps the object alive and resumes it after a restart. */
export const RUN_HEARTBEAT_MS = 10_000;

type AlarmParts = Pick<
  Session,
  "runs" | "approvals" | "queues" | "meta" | "settings" | "schedules" | "sink" | "record" | "userBudget" | "userIndex"
> & {
  ctx: DurableObjectState;
  env: { SESSION_IDLE_TTL_DAYS?: string; SESSION_TOKEN_BUDGET?: string };
};

/**
 * Queues the message of every schedule that is due (schedule-firing.ts) and starts a run for them and for
 * any input left pending. Called on every wake and alarm; a second call for the same time finds nothing.
 */
export function startDueWork({ runs, ctx, schedules, queues, sink, meta, record, userBudget, env, settings }: AlarmParts): void {
  if (runs.isShutdown) return;
  // The user's count as last learnt: a session that has not asked yet fires, and its run asks before any model call.
  const spentBudget = () => {
    const budget = tighter(sessionBudget({ env, meta, record, settings }), userBudget?.lastKnown());
    return budget && isSpent(budget) ? budget : undefined;
  };
  fireDueSchedules({ schedules, queues, sink, storage: ctx.storage, spentBudget }, Date.now());
  runs.startIfReady();
}

/** A run started: the heartbeat keeps the object alive while it lasts (the sooner of it and the next schedule). */
export function armRunHeartbeat({ ctx, schedules }: Pick<AlarmParts, "ctx" | "schedules">): void {
  const at = Date.now() + RUN_HEARTBEAT_MS;
  void ctx.storage.setAlarm(Math.min(at, schedules.nextWakeAt(Date.now()) ?? at));
}

/** The alarm: wakes the session, then plans the next alarm; "expired" once the idle deadline has passed. */
export async function onAlarm(parts: AlarmParts): Promise<"alive" | "expired"> {
  startDueWork(parts);
  return planAlarm(parts);
}

/** Sets the next alarm for what the session is waiting on; "expired" when nothing is and the idle deadline passed. */
export async function planAlarm(parts: AlarmParts): Promise<"alive" | "expired"> {
  const { ctx, runs, approvals, schedules, record, settings, env } = parts;
  if (runs.activeRunId !== null || approvals.pending().length > 0) {
    armRunHeartbeat(parts);
    return "alive";
  }
  // A session with schedules pending does not expire: it sleeps until the next one is due.
  const scheduled = runs.isShutdown ? undefined : schedules.nextWakeAt(Date.now());
  if (scheduled !== undefined) {
    await ctx.storage.setAlarm(scheduled);
    await keepListedUntil(parts, scheduled);
    return "alive";
  }
  const deadline = (record.lastActiveAt ?? settings.createdAt) + sessionIdleTtlMs(env);
  if (Date.now() >= deadline) return "expired";
  await ctx.storage.setAlarm(deadline);
  return "alive";
}

/** Room for a due schedule's run to end and mark the session active before its user's list would drop it. */
const LISTING_MARGIN_MS = 86_400_000;

/**
 * Its user's list forgets a row idle past the session lifetime (src/users/user-store.ts); a schedule due
 * later than that keeps this session alive, so the row is told to stay until the schedule's time plus a
 * lifetime. Only then is the user's store called: a schedule due sooner fires and its run marks the row.
 */
async function keepListedUntil({ userIndex, record, settings, env }: AlarmParts, scheduled: number): Promise<void> {
  const lifetime = sessionIdleTtlMs(env);
  if (userIndex && scheduled + LISTING_MARGIN_MS > (record.lastActiveAt ?? settings.createdAt) + lifetime)
    await userIndex.keptUntil(scheduled + lifetime);
}
