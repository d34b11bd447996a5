/**
 * The pure parts of the benchmark harness (scripts/bench): nearest-rank percentiles, and the bench LLM's
 * plan for seeding history to an exact size and for step runs. The bench itself runs outside `npm test`.
 */
import { describe, expect, it } from "vitest";
import { planReply, type WireMessage } from "../../scripts/bench/bench-llm.ts";
import { percentile, summarize } from "../../scripts/bench/stats.ts";

/** Plays the runtime: appends what a reply adds to history (the assistant message, then one result per call). */
function runCommand(command: string, history: WireMessage[]): number {
  history.push({ role: "user", content: command });
  for (let replies = 1; ; replies++) {
    const reply = planReply(command, history);
    const calls = reply.toolCalls ?? [];
    history.push({ role: "assistant", content: reply.text ?? null, ...(calls.length ? { tool_calls: calls } : {}) });
    if (calls.length === 0) return replies;
    for (let i = 0; i < calls.length; i++) history.push({ role: "tool", content: "echo" });
  }
}

describe("bench statistics", () => {
  it("takes the nearest-rank percentile", () => {
    const sorted = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(10);
    expect(percentile(sorted, 95)).toBe(19);
  });

  it("summarizes unsorted samples by median and p95", () => {
    expect(summarize([5, 1, 3, 2, 4])).toMatchObject({ n: 5, p50: 3, p95: 5, min: 1, max: 5, mean: 3 });
  });

  it("summarizes no samples as NaN without throwing", () => {
    expect(summarize([]).p50).toBeNaN();
  });
});

describe("bench LLM plan", () => {
  it("seeds a new session to exactly the asked number of messages", () => {
    for (const size of [10, 100, 1000]) {
      const history: WireMessage[] = [];
      runCommand(`seed ${size}`, history);
      expect(history).toHaveLength(size);
    }
  });

  it("seeds 1,000 messages in fewer LLM calls than the loop's 32-step limit", () => {
    expect(runCommand("seed 1000", [])).toBeLessThan(32);
  });

  it("makes exactly K single tool calls for `steps K`, then answers", () => {
    const history: WireMessage[] = [];
    expect(runCommand("steps 4", history)).toBe(5);
    expect(history.filter((m) => m.role === "tool")).toHaveLength(4);
  });
});
