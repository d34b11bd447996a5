/** Conformance fixture (test only, never shipped): reports its own progress of a total of 100. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_tool_with_progress",
    label: "Progress",
    description: "Reports progress while it runs",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, onPartialResult) {
      for (const progress of [0, 50, 100]) {
        onPartialResult({ progress, total: 100, message: `Completed step ${progress / 50 + 1} of 3` });
        await new Promise((r) => setTimeout(r, 20));
      }
      return { content: [{ type: "text", text: "Progress test completed" }], details: {}, terminate: false };
    },
  };
}
