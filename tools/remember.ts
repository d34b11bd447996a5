/**
 * remember: keeps a fact about the signed-in user in their memory (README "Users"), for this and their
 * later conversations, through the session's "memory" capability. Only sessions that belong to a user
 * have it. A refusal (too long, MAX_MEMORIES reached) throws an Error naming it: an error result.
 */
import * as z from "zod";
import { defineTool } from "../src/tools/define-tool.ts";
import type { AgentTool } from "../src/core/types.ts";

export function getTool(): AgentTool {
  return defineTool({
    name: "remember",
    label: "Remember",
    description:
      "Keep one short fact about the user (a preference, a name, a plan) in their memory, for this and later conversations. " +
      "Write it as a self-contained sentence. Returns the memory's id (forget takes it).",
    schema: z.object({ text: z.string().min(1).max(2_000).describe("The fact to keep, at most 2,000 characters") }),
    capabilities: ["memory"],
    async execute(_toolCallId, { text }, _signal, _onPartialResult, context) {
      const memory = context?.memory;
      if (!memory) throw new Error("Memory is not available in this session.");
      const kept = await memory.remember(text);
      if (!kept.ok) throw new Error(kept.message);
      return {
        content: [{ type: "text", text: JSON.stringify({ memoryId: kept.memoryId }) }],
        details: { memoryId: kept.memoryId },
        terminate: false,
      };
    },
  });
}
