/**
 * tools/rollDice.ts, and the offline demo model asking for it in ordinary words: the tool's own JSON
 * Schema goes to planToolCalls (src/llm/offline-intent.ts) exactly as a session would send it.
 */
import { describe, expect, it } from "vitest";
import type { ChatTool } from "../../src/core/index.ts";
import { planToolCalls } from "../../src/llm/offline-intent.ts";
import { getTool } from "../../tools/rollDice.ts";
import { getTool as getTimeTool } from "../../tools/getTime.ts";
import type { AgentTool } from "../../src/core/types.ts";
import { runToolCall, textOf } from "./support.ts";

const asChatTool = (tool: AgentTool): ChatTool => ({
  type: "function",
  function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
});
const offered = [asChatTool(getTool()), asChatTool(getTimeTool())];
const plan = (message: string) => planToolCalls(message, offered);

describe("rollDice", () => {
  it("rolls n dice of 6 sides by default, each roll in range, with the total", async () => {
    const { message } = await runToolCall(getTool(), { n: 3 });
    expect(message.isError).toBe(false);
    const rolls = message.details.rolls as number[];
    expect(rolls).toHaveLength(3);
    expect(rolls.every((r) => Number.isInteger(r) && r >= 1 && r <= 6)).toBe(true);
    expect(textOf(message)).toBe(`Rolled 3d6: ${rolls.join(", ")} (total ${rolls.reduce((a, b) => a + b, 0)})`);
  });

  it("rolls one die of 6 sides when the call names no count, as any model may send it", async () => {
    expect(getTool().inputSchema).toMatchObject({ properties: { n: { default: 1 } } });
    expect(getTool().inputSchema.required ?? []).not.toContain("n");
    const { message } = await runToolCall(getTool(), {});
    expect(message.isError).toBe(false);
    expect(message.details.rolls).toHaveLength(1);
    expect(textOf(message)).toMatch(/^Rolled 1d6: [1-6] \(total [1-6]\)$/);
  });

  it("still refuses a count out of range, naming n", async () => {
    const { message } = await runToolCall(getTool(), { n: 0 });
    expect(message.isError).toBe(true);
    expect(textOf(message)).toMatch(/\bn\b/);
  });
});

describe("the offline model asking for rollDice", () => {
  it("understands 'roll 3 dice'", () => {
    expect(plan("roll 3 dice")).toEqual([{ name: "rollDice", arguments: { n: 3 } }]);
  });

  it("reads the number of sides from '20 sides', '20-sided' and '3d20', and number words", () => {
    expect(plan("Roll two dice with 20 sides")).toEqual([{ name: "rollDice", arguments: { n: 2, sides: 20 } }]);
    expect(plan("roll four 20-sided dice")).toEqual([{ name: "rollDice", arguments: { n: 4, sides: 20 } }]);
    expect(plan("please roll 3d20")).toEqual([{ name: "rollDice", arguments: { n: 3, sides: 20 } }]);
  });

  it("lets key=value pairs win over the words around them", () => {
    expect(plan("roll dice n=5 sides=8")).toEqual([{ name: "rollDice", arguments: { n: 5, sides: 8 } }]);
  });

  it("answers 'Then roll a dice.' with one die, not an error card", async () => {
    const calls = plan("What time is it in Tokyo? Then roll a dice.");
    expect(calls).toEqual([
      { name: "getTime", arguments: { city: "Tokyo" } },
      { name: "rollDice", arguments: {} },
    ]);
    const { message } = await runToolCall(getTool(), calls[1]!.arguments);
    expect(message.isError).toBe(false);
    expect(textOf(message)).toMatch(/^Rolled 1d6: [1-6] \(total [1-6]\)$/);
  });

  it("keeps each tool's numbers to its own part of the message", () => {
    expect(plan("roll 2 dice and tell me the time in Lima")).toEqual([
      { name: "rollDice", arguments: { n: 2 } },
      { name: "getTime", arguments: { city: "Lima" } },
    ]);
  });
});
