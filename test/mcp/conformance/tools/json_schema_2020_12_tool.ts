/** Conformance fixture (test only, never shipped): a draft 2020-12 input schema served as written. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "json_schema_2020_12_tool",
    label: "JSON Schema 2020-12",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false,
    },
    execute: (_id, args) => ({ content: [{ type: "text", text: `Received: ${JSON.stringify(args)}` }], details: {}, terminate: false }),
  };
}
