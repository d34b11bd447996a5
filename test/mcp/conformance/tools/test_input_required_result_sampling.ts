/** Conformance fixture (test only, never shipped): asks the client's model by a Multi Round-Trip Request */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_input_required_result_sampling",
    label: "test_input_required_result_sampling",
    description: "asks the client's model by a Multi Round-Trip Request",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, _onPartial, context) {
      if (!context?.elicit || !context.sample) throw new Error("The client cannot be asked");
      const reply = await context.sample({ messages: [{ role: "user", text: "What is the capital of France?" }], maxTokens: 50 });
      return { content: [{ type: "text", text: `The model said: ${reply.text}` }], details: {}, terminate: false };
    },
  };
}
