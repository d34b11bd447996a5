/** Fixture (test only, never shipped): declares an output schema, so /mcp serves details as structuredContent. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_structured_output",
    label: "Structured output",
    description: "Returns a temperature as structured content",
    inputSchema: { type: "object", properties: {} },
    outputSchema: { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
    annotations: { readOnlyHint: true, openWorldHint: false },
    execute: () => ({ content: [{ type: "text", text: '{"celsius":21.5}' }], details: { celsius: 21.5 }, terminate: false }),
  };
}
