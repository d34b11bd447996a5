/** Conformance fixture (test only, never shipped): text, image and a resource in one result. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_multiple_content_types",
    label: "Mixed content",
    description: "Returns text, image and resource content",
    inputSchema: { type: "object", properties: {} },
    execute: () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        {
          type: "image",
          data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
          mimeType: "image/png",
        },
        {
          type: "resource",
          resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
        },
      ],
      details: {},
      terminate: false,
    }),
  };
}
