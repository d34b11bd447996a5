/** Conformance fixture (test only, never shipped): logs three messages through its context. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_tool_with_logging",
    label: "Logging",
    description: "Sends log messages while it runs",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, _onPartial, context) {
      context?.log?.("info", "Tool execution started");
      await new Promise((r) => setTimeout(r, 20));
      context?.log?.("info", "Tool processing data");
      await new Promise((r) => setTimeout(r, 20));
      context?.log?.("info", "Tool execution completed");
      return { content: [{ type: "text", text: "Logging test completed" }], details: {}, terminate: false };
    },
  };
}
