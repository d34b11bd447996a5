/** Conformance fixture (test only, never shipped): asks only what the client can answer (its model) */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_input_required_result_capabilities",
    label: "test_input_required_result_capabilities",
    description: "asks only what the client can answer (its model)",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, _onPartial, context) {
      if (!context?.elicit || !context.sample) throw new Error("The client cannot be asked");
      const reply = await context.sample({ messages: [{ role: "user", text: "Say hello" }], maxTokens: 20 });
      return { content: [{ type: "text", text: `The model said: ${reply.text}` }], details: {}, terminate: false };
    },
  };
}
