/**
 * benchStream: streams `count` partial results for the benchmark's SSE measurements (copied into the
 * bench's temporary project only). With `spacingMs` > 0 it waits that long before each partial (latency
 * probe: each partial leaves an idle stream); with 0 it emits as fast as it can, yielding to the event loop
 * every `yieldEvery` partials so the writes can flow (throughput probe). Each partial carries its index.
 */
import type { AgentTool } from "../../../src/core/index.ts";

const DEFAULT_YIELD_EVERY = 50;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function getTool(): AgentTool {
  return {
    name: "benchStream",
    label: "Bench stream",
    description: "Emits a number of partial results (benchmark tool).",
    inputSchema: {
      type: "object",
      properties: { count: { type: "number" }, spacingMs: { type: "number" }, yieldEvery: { type: "number" } },
      required: ["count"],
    },
    parallelToolExecute: true,
    idempotent: true,
    async execute(_toolCallId, args, signal, onPartialResult) {
      const count = typeof args.count === "number" ? args.count : 0;
      const spacingMs = typeof args.spacingMs === "number" ? args.spacingMs : 0;
      const yieldEvery = typeof args.yieldEvery === "number" && args.yieldEvery > 0 ? args.yieldEvery : DEFAULT_YIELD_EVERY;
      for (let i = 0; i < count && !signal?.aborted; i++) {
        if (spacingMs > 0) await pause(spacingMs);
        else if (i > 0 && i % yieldEvery === 0) await pause(0);
        onPartialResult({ i });
      }
      return { content: [{ type: "text", text: `streamed ${count}` }], details: {}, terminate: false };
    },
  };
}
