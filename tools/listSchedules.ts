/**
 * listSchedules: the session's schedules (id, kind, spec, next run, runs so far, message), soonest first,
 * as GET /v1/sessions/:id/schedules lists them, through the session's "schedules" capability.
 */
import * as z from "zod";
import { defineTool } from "../src/tools/define-tool.ts";
import type { AgentTool } from "../src/core/types.ts";

export function getTool(): AgentTool {
  return defineTool({
    name: "listSchedules",
    label: "List Schedules",
    description:
      "List this conversation's schedules (made with the schedule tool or by the user): id, kind, timing, next run (UTC) and message.",
    schema: z.object({}),
    capabilities: ["schedules"],
    parallelToolExecute: true,
    idempotent: true,
    execute(_toolCallId, _args, _signal, _onPartialResult, context) {
      const schedules = context?.schedules;
      if (!schedules) throw new Error("Schedules are not available in this session.");
      const list = schedules.list();
      const lines = list.map(
        (s) =>
          `- ${s.id}${s.name ? ` "${s.name}"` : ""}: ${s.kind} ${s.spec}, next ${new Date(s.nextRunAt).toISOString()}, runs ${s.runs}: ${JSON.stringify(s.message)}`,
      );
      return {
        content: [{ type: "text", text: list.length === 0 ? "No schedules." : lines.join("\n") }],
        details: { schedules: list },
        terminate: false,
      };
    },
  });
}
