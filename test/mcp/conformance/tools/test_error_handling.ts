/** Conformance fixture (test only, never shipped): always fails. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_error_handling",
    label: "Error",
    description: "Always fails with an error result",
    inputSchema: { type: "object", properties: {} },
    execute: () => {
      throw new Error("This tool intentionally returns an error for testing");
    },
  };
}
