/**
 * forget: removes one memory of the signed-in user's by id (from remember or recall), as DELETE
 * /v1/memories/:id does, through the session's "memory" capability. It leaves search at once.
 */
import * as z from "zod";
import { defineTool } from "../src/tools/define-tool.ts";
import type { AgentTool } from "../src/core/types.ts";

export function getTool(): AgentTool {
  return defineTool({
    name: "forget",
    label: "Forget",
    description: "Forget one memory of the user's by its id (see recall), when they ask you to or it is no longer true.",
    schema: z.object({ memoryId: z.string().min(1).max(100).describe("The memory's id") }),
    capabilities: ["memory"],
    async execute(_toolCallId, { memoryId }, _signal, _onPartialResult, context) {
      const memory = context?.memory;
      if (!memory) throw new Error("Memory is not available in this session.");
      if (!(await memory.forget(memoryId))) throw new Error(`No memory with id ${memoryId}; recall shows the ids.`);
      return { content: [{ type: "text", text: `Forgot ${memoryId}.` }], details: { memoryId }, terminate: false };
    },
  });
}
