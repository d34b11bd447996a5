/** Conformance fixture (test only, never shipped): asks the user's name; the retry carries the sealed request state */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_input_required_result_request_state",
    label: "test_input_required_result_request_state",
    description: "asks the user's name; the retry carries the sealed request state",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, _onPartial, context) {
      if (!context?.elicit || !context.sample) throw new Error("The client cannot be asked");
      const answer = await context.elicit({
        key: "user_name",
        message: "What is your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      });
      const name = answer.action === "accept" ? String(answer.content?.name ?? "") : "(no answer)";
      return { content: [{ type: "text", text: `Hello, ${name}!` }], details: {}, terminate: false };
    },
  };
}
