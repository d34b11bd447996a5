/**
 * benchSleep: a parallel-safe tool that waits `ms` milliseconds (default 100), for the benchmark's
 * parallel-batch measurement. Copied into the bench's temporary project only; honours its abort signal.
 */
import type { AgentTool } from "../../../src/core/types.ts";

const DEFAULT_SLEEP_MS = 100;

export function getTool(): AgentTool {
  return {
    name: "benchSleep",
    label: "Bench sleep",
    description: "Waits the given number of milliseconds (benchmark tool).",
    inputSchema: { type: "object", properties: { ms: { type: "number" } }, required: [] },
    parallelToolExecute: true,
    idempotent: true,
    async execute(_toolCallId, args, signal) {
      const ms = typeof args.ms === "number" ? args.ms : DEFAULT_SLEEP_MS;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
      return { content: [{ type: "text", text: `slept ${ms} ms` }], details: {}, terminate: false };
    },
  };
}
