/**
 * The "schedules" tool capability (ScheduleAccess, schedule-vocabulary.ts) over a session's schedule store: the
 * same checks and MAX_SCHEDULES bound as the HTTP routes, because both go through ScheduleStore.create.
 * A new schedule re-arms the object's one alarm (`rearm`, session-alarm.ts). Built by the session loader.
 */
import type { ScheduleStore } from "./schedule-store.ts";
import type { ScheduleAccess } from "./schedule-vocabulary.ts";

export function scheduleAccess(schedules: ScheduleStore, rearm: () => void): ScheduleAccess {
  return {
    create: (request) => {
      const created = schedules.create(request, Date.now());
      if (!created.ok) return { ok: false, message: created.message };
      rearm();
      return created;
    },
    list: () => schedules.list(),
    cancel: (scheduleId) => schedules.cancel(scheduleId),
  };
}
