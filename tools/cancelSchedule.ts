/**
 * cancelSchedule: removes one of the session's schedules by id (from the schedule or listSchedules tool),
 * as DELETE /v1/sessions/:id/schedules/:scheduleId does, through the session's "schedules" capability.
 */
import * as z from "zod";
import { defineTool } from "../src/tools/define-tool.ts";
import type { AgentTool } from "../src/core/types.ts";

export function getTool(): AgentTool {
  return defineTool({
    name: "cancelSchedule",
    label: "Cancel Schedule",
    description: "Cancel one of this conversation's schedules by its id (see listSchedules).",
    schema: z.object({ id: z.string().min(1).max(100).describe("The schedule's id") }),
    capabilities: ["schedules"],
    execute(_toolCallId, { id }, _signal, _onPartialResult, context) {
      const schedules = context?.schedules;
      if (!schedules) throw new Error("Schedules are not available in this session.");
      if (!schedules.cancel(id)) throw new Error(`No schedule with id ${id}; listSchedules shows the ids.`);
      return { content: [{ type: "text", text: `Cancelled schedule ${id}.` }], details: { id }, terminate: false };
    },
  });
}
