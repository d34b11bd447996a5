/**
 * rollDice: rolls n dice of a given number of sides (the README's example tool). Loaded through the
 * generated registry; the model calls it with `{n?, sides?}`: "roll a die" names no count, so n defaults
 * to one (applied by the schema's parse in defineTool, whichever model called). Pure apart from
 * Math.random; parallel-safe.
 */
import * as z from "zod";
import { defineTool } from "../src/tools/define-tool.ts";
import type { AgentTool } from "../src/core/index.ts";

/** Enough for any board game; bounded so one call cannot produce a huge result. */
const MAX_DICE = 100;

/** Built by getTool(), when a session loads its tools, rather than at module load (start-up CPU). */
const schema = () =>
  z.object({
    n: z.number().int().min(1).max(MAX_DICE).default(1).describe("How many dice to roll; 1 when omitted."),
    sides: z.number().int().min(2).max(1000).default(6).describe("Sides of each die; 6 when omitted."),
  });

export function getTool(): AgentTool {
  return defineTool({
    name: "rollDice",
    label: "Dice",
    description: `Roll n dice (1-${MAX_DICE}, default 1) with the given number of sides (default 6) and report each roll and the total.`,
    schema: schema(),
    parallelToolExecute: true,
    execute: (_toolCallId, { n, sides }) => {
      const rolls = Array.from({ length: n }, () => 1 + Math.floor(Math.random() * sides));
      const total = rolls.reduce((a, b) => a + b, 0);
      return { content: [{ type: "text", text: `Rolled ${n}d${sides}: ${rolls.join(", ")} (total ${total})` }], details: { rolls, total } };
    },
  });
}
