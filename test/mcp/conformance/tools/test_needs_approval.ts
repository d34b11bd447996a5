/** Fixture (test only, never shipped): needs a human's approval, which /mcp asks for through elicitation. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_needs_approval",
    label: "Needs approval",
    description: "Deletes nothing, but asks first",
    inputSchema: { type: "object", properties: { what: { type: "string" } }, required: ["what"] },
    requiresApproval: true,
    annotations: { destructiveHint: true },
    execute: (_id, args) => ({ content: [{ type: "text", text: `ran for ${String(args.what)}` }], details: {}, terminate: false }),
  };
}
