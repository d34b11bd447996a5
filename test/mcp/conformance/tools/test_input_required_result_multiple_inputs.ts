/** Conformance fixture (test only, never shipped): asks three questions at once, answered in one round. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_input_required_result_multiple_inputs",
    label: "test_input_required_result_multiple_inputs",
    description: "asks its user, the client's model and the client's roots at once",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, _onPartial, context) {
      if (!context?.elicit || !context.sample || !context.roots) throw new Error("The client cannot be asked");
      const [user, greeting, roots] = await Promise.all([
        context.elicit({
          key: "user_name",
          message: "What is your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        }),
        context.sample({ key: "greeting", messages: [{ role: "user", text: "Generate a greeting" }], maxTokens: 50 }),
        context.roots({ key: "client_roots" }),
      ]);
      const text = `Name: ${JSON.stringify(user.content ?? {})}; greeting: ${greeting.text}; roots: ${roots.length}`;
      return { content: [{ type: "text", text }], details: {}, terminate: false };
    },
  };
}
