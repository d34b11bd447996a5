// @ts-check
/**
 * The schedules panel: the session's schedules (next run, kind and timing, message, runs so far), soonest
 * first, each with a Cancel button. Rendered by main.js from the snapshot and again after a fire or a
 * change; cancelling goes through the handler main.js passes (DELETE …/schedules/:scheduleId).
 */
import { el } from "./dom.js";

/** @import { ScheduleEntry } from "../client.js" */

/** @type {Record<ScheduleEntry["kind"], string>} */
const KIND_LABELS = { at: "once", every: "every", cron: "cron" };

/** @param {ScheduleEntry} schedule */
function timing(schedule) {
  if (schedule.kind === "every") return `every ${Math.round(Number(schedule.spec) / 1000)} s`;
  if (schedule.kind === "cron") return `cron ${schedule.spec} (UTC)`;
  return "once";
}

/**
 * @param {HTMLElement} container
 * @param {ScheduleEntry[]} schedules
 * @param {(scheduleId: string) => Promise<unknown>} onCancel
 */
export function renderSchedules(container, schedules, onCancel) {
  if (schedules.length === 0) {
    container.replaceChildren(
      el("p", { class: "muted", text: "No schedules. Ask the agent to do something later, e.g. “check again in an hour”." }),
    );
    return;
  }
  const items = schedules.map((schedule) => {
    const next = new Date(schedule.nextRunAt);
    const cancel = el("button", {
      type: "button",
      class: "small",
      "aria-label": `Cancel schedule ${schedule.name ?? schedule.message}`,
      text: "Cancel",
    });
    cancel.addEventListener("click", async () => {
      cancel.disabled = true;
      try {
        await onCancel(schedule.id);
      } finally {
        cancel.disabled = false;
      }
    });
    return el(
      "li",
      { class: "schedule-entry", dataset: { scheduleId: schedule.id, kind: schedule.kind } },
      el(
        "div",
        { class: "schedule-head" },
        el("time", { class: "schedule-next", datetime: next.toISOString(), title: next.toISOString(), text: next.toLocaleString() }),
        el("span", { class: "badge", title: KIND_LABELS[schedule.kind], text: timing(schedule) }),
        schedule.runs > 0 ? el("span", { class: "badge", text: `ran ${schedule.runs}×` }) : null,
        cancel,
      ),
      el("p", { class: "schedule-message", text: schedule.name ? `${schedule.name}: ${schedule.message}` : schedule.message }),
    );
  });
  container.replaceChildren(el("ul", { class: "schedule-list" }, items));
}
