/** Conformance fixture (test only, never shipped): a 1×1 PNG. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_image_content",
    label: "Image content",
    description: "Returns image content",
    inputSchema: { type: "object", properties: {} },
    execute: () => ({
      content: [
        {
          type: "image",
          data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
          mimeType: "image/png",
        },
      ],
      details: {},
      terminate: false,
    }),
  };
}
