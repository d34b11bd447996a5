/** Conformance fixture (test only, never shipped): plain text. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_simple_text",
    label: "Simple text",
    description: "Returns simple text content",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true, destructiveHint: false },
    execute: () => ({ content: [{ type: "text", text: "This is a simple text response for testing." }], details: {}, terminate: false }),
  };
}
