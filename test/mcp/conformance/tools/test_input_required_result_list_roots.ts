/** Conformance fixture (test only, never shipped): asks the client for its roots and names them. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_input_required_result_list_roots",
    label: "test_input_required_result_list_roots",
    description: "asks the client which roots it works in",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, _onPartial, context) {
      if (!context?.roots) throw new Error("The client cannot be asked for roots");
      const roots = await context.roots({ key: "client_roots" });
      return { content: [{ type: "text", text: `Roots: ${roots.map((r) => r.uri).join(", ")}` }], details: {}, terminate: false };
    },
  };
}
