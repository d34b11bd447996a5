/**
 * schedule: the model has its session send itself a message later, once (`at`, `delayMs`) or repeatedly
 * (`cron` in UTC, `everyMs`), e.g. "I'll check again at 7:00". The same body, checks and MAX_SCHEDULES
 * bound as POST /v1/sessions/:id/schedules, through the session's "schedules" capability (tool-context.ts).
 * A refusal throws an Error naming the problem, which the pipeline turns into an error result.
 */
import { defineTool } from "../src/tools/define-tool.ts";
import { scheduleRequest } from "../src/schedules/schedule-request.ts";
import type { AgentTool } from "../src/core/types.ts";

export function getTool(): AgentTool {
  return defineTool({
    name: "schedule",
    label: "Schedule",
    description:
      "Have this conversation receive `message` as a new user message later, so you can act then (e.g. check something again). " +
      "Give exactly one of: at (ISO 8601 date-time with zone, or epoch ms), delayMs (once, after a delay), cron (5 fields, UTC, repeats) or everyMs (repeats). " +
      "Write the message as an instruction to yourself. Returns the schedule's id and its first run time.",
    schema: scheduleRequest(),
    capabilities: ["schedules"],
    execute(_toolCallId, request, _signal, _onPartialResult, context) {
      const schedules = context?.schedules;
      if (!schedules) throw new Error("Schedules are not available in this session.");
      const created = schedules.create(request);
      if (!created.ok) throw new Error(created.message);
      const { id, nextRunAt } = created.value;
      return {
        content: [{ type: "text", text: `Scheduled (id ${id}); first run at ${new Date(nextRunAt).toISOString()}.` }],
        details: { id, nextRunAt },
        terminate: false,
      };
    },
  });
}
