/** Conformance fixture (test only, never shipped): an embedded text resource. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_embedded_resource",
    label: "Embedded resource",
    description: "Returns an embedded resource",
    inputSchema: { type: "object", properties: {} },
    execute: () => ({
      content: [
        {
          type: "resource",
          resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
        },
      ],
      details: {},
      terminate: false,
    }),
  };
}
