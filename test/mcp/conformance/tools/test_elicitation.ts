/** Conformance fixture (test only, never shipped): asks the client's user for a username and email. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_elicitation",
    label: "Elicitation",
    description: "Asks the user for input",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
    async execute(_id, args, _signal, _onPartial, context) {
      if (!context?.elicit) throw new Error("The client cannot be asked (no elicitation capability)");
      const answer = await context.elicit({
        message: String(args.message),
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      });
      return {
        content: [{ type: "text", text: `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}` }],
        details: {},
        terminate: false,
      };
    },
  };
}
