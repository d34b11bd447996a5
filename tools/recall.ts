/**
 * recall: full-text search of the signed-in user's memory (README "Users"), best match first, through the
 * session's "memory" capability. Only sessions that belong to a user have it.
 */
import * as z from "zod";
import { defineTool } from "../src/tools/define-tool.ts";
import type { AgentTool } from "../src/core/types.ts";

export function getTool(): AgentTool {
  return defineTool({
    name: "recall",
    label: "Recall",
    description:
      "Search what the user asked you to remember (in this or earlier conversations) by words, best match first. " +
      "Returns the memories' ids, texts and when they were kept.",
    schema: z.object({
      query: z.string().min(1).max(2_000).describe("Words to look for"),
      limit: z.number().int().min(1).max(50).optional().describe("How many memories at most (default 10)"),
    }),
    capabilities: ["memory"],
    async execute(_toolCallId, { query, limit }, _signal, _onPartialResult, context) {
      const memory = context?.memory;
      if (!memory) throw new Error("Memory is not available in this session.");
      const found = await memory.recall(query, limit ?? 10);
      const memories = found.map(({ id, text, createdAt }) => ({ id, text, createdAt: new Date(createdAt).toISOString() }));
      return { content: [{ type: "text", text: JSON.stringify({ memories }) }], details: { memories }, terminate: false };
    },
  });
}
