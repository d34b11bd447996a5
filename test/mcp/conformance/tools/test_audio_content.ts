/** Conformance fixture (test only, never shipped): an empty WAV. */
import type { AgentTool } from "../../../../src/core/types.ts";

export function getTool(): AgentTool {
  return {
    name: "test_audio_content",
    label: "Audio content",
    description: "Returns audio content",
    inputSchema: { type: "object", properties: {} },
    execute: () => ({
      content: [{ type: "audio", data: "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=", mimeType: "audio/wav" }],
      details: {},
      terminate: false,
    }),
  };
}
