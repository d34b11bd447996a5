/**
 * benchStream: streams `count` partial results `spacingMs` apart for the benchmark's SSE latency (copied
 * into the bench's temporary project only): each partial leaves an idle stream. Each carries its index.
 */
import type { AgentTool } from "../../../src/core/index.ts";

export function getTool(): AgentTool {
  return {
    name: "benchStream",
    label: "Bench stream",
    description: "Emits a number of partial results (benchmark tool).",
    inputSchema: { type: "object", properties: { count: { type: "number" }, spacingMs: { type: "number" } }, required: ["count"] },
    parallelToolExecute: true,
    idempotent: true,
    async execute(_toolCallId, args, signal, onPartialResult) {
      const count = typeof args.count === "number" ? args.count : 0;
      const spacingMs = typeof args.spacingMs === "number" ? args.spacingMs : 0;
      for (let i = 0; i < count && !signal?.aborted; i++) {
        await new Promise<void>((resolve) => setTimeout(resolve, spacingMs));
        onPartialResult({ i });
      }
      return { content: [{ type: "text", text: `streamed ${count}` }], details: {}, terminate: false };
    },
  };
}
