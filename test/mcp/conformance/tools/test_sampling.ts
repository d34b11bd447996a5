/** Conformance fixture (test only, never shipped): asks the client's model to continue a prompt. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_sampling",
    label: "Sampling",
    description: "Asks the client's model to answer a prompt",
    inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
    async execute(_id, args, _signal, _onPartial, context) {
      if (!context?.sample) throw new Error("The client's model cannot be asked (no sampling capability)");
      const reply = await context.sample({ messages: [{ role: "user", text: String(args.prompt) }], maxTokens: 100 });
      return { content: [{ type: "text", text: `LLM response: ${reply.text}` }], details: { model: reply.model }, terminate: false };
    },
  };
}
