/**
 * The "schedules" tool capability (ScheduleAccess, schedule-vocabulary.ts) over a session's schedule store: the
 * same checks and MAX_SCHEDULES bound as the HTTP routes, because both go through ScheduleStore.create.
 * A new schedule re-arms the object's one alarm through the run driver. Built by the session loader.
 */
import type { RunDriver } from "../session/run/run-driver.ts";
import type { ScheduleStore } from "./schedule-store.ts";
import type { ScheduleAccess } from "./schedule-vocabulary.ts";

export function scheduleAccess(schedules: ScheduleStore, driver: () => RunDriver): ScheduleAccess {
  return {
    create: (request) => {
      const created = schedules.create(request, Date.now());
      if (!created.ok) return { ok: false, message: created.message };
      void driver().heartbeat();
      return created;
    },
    list: () => schedules.list(),
    cancel: (scheduleId) => schedules.cancel(scheduleId),
  };
}
