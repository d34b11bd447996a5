/**
 * benchEcho: the benchmark's cheap tool (copied into a temporary project's tools/ by the bench only, never
 * shipped). Returns its `text` argument at once, so a step's measured cost is the runtime's, not the tool's.
 */
import type { AgentTool } from "../../../src/core/index.ts";

export function getTool(): AgentTool {
  return {
    name: "benchEcho",
    label: "Bench echo",
    description: "Returns the given text unchanged (benchmark tool).",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: [] },
    parallelToolExecute: true,
    idempotent: true,
    execute(_toolCallId, args) {
      const text = typeof args.text === "string" ? args.text : "";
      return { content: [{ type: "text", text: `echo ${text}` }], details: {}, terminate: false };
    },
  };
}
