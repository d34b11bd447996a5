/** Conformance fixture (test only, never shipped): needs the client's model, whether or not the client declared it. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_missing_capability",
    label: "Missing capability",
    description: "Asks the client's model; a client without the sampling capability must be refused",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, _onPartial, context) {
      if (!context?.sample) throw new Error("The client's model cannot be asked (no sampling capability)");
      const reply = await context.sample({ messages: [{ role: "user", text: "Say hello" }], maxTokens: 20 });
      return { content: [{ type: "text", text: reply.text }], details: {}, terminate: false };
    },
  };
}
