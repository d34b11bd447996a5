/** Conformance fixture (test only, never shipped): an elicitation whose fields carry defaults. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_elicitation_sep1034_defaults",
    label: "Elicitation defaults",
    description: "Asks the user with default values for every primitive type",
    inputSchema: { type: "object", properties: {} },
    async execute(_id, _args, _signal, _onPartial, context) {
      if (!context?.elicit) throw new Error("The client cannot be asked (no elicitation capability)");
      const answer = await context.elicit({
        message: "Please review and update the form fields with defaults",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "User name", default: "John Doe" },
            age: { type: "integer", description: "User age", default: 30 },
            score: { type: "number", description: "User score", default: 95.5 },
            status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
            verified: { type: "boolean", description: "Verification status", default: true },
          },
          required: [],
        },
      });
      return {
        content: [
          { type: "text", text: `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}` },
        ],
        details: {},
        terminate: false,
      };
    },
  };
}
