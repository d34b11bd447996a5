/** Conformance fixture (test only, never shipped): asks two questions, one round each */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_input_required_result_multi_round",
    label: "test_input_required_result_multi_round",
    description: "asks two questions, one round each",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, _onPartial, context) {
      if (!context?.elicit || !context.sample) throw new Error("The client cannot be asked");
      const first = await context.elicit({
        key: "first",
        message: "First question: your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      });
      const second = await context.elicit({
        key: "second",
        message: "Second question: your city?",
        requestedSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      });
      return {
        content: [{ type: "text", text: `Answers: ${JSON.stringify(first.content ?? {})} ${JSON.stringify(second.content ?? {})}` }],
        details: {},
        terminate: false,
      };
    },
  };
}
