/**
 * The benchmark harness (scripts/bench): nearest-rank percentiles, the bench LLM's plan for seeding
 * history to an exact size and for step runs, its timing taps (the step is the gap they record), and the
 * canonical seeded history the peers (bench/peers) are given. The bench itself runs outside `npm test`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedHistory } from "../../bench/peers/seed-history.ts";
import {
  planReply,
  seedText,
  startBenchLlm,
  systemPromptFor,
  SEED_TEXT_CHARS,
  type BenchLlm,
  type WireMessage,
} from "../../scripts/bench/bench-llm.ts";
import { percentile, summarize } from "../../scripts/bench/stats.ts";

/**
 * Plays the runtime: appends what a reply adds to history in the wire's shape (the assistant message with its
 * tool calls, then one result per call, as benchEcho answers).
 */
function runCommand(command: string, history: WireMessage[]): number {
  history.push({ role: "user", content: command });
  for (let replies = 1; ; replies++) {
    const reply = planReply(command, history);
    const calls = (reply.toolCalls ?? []).map((c, i) => ({
      id: `call_mock_${replies}_${i}`,
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      text: (c.arguments as { text?: string }).text ?? "",
    }));
    history.push({
      role: "assistant",
      content: reply.text ?? null,
      ...(calls.length ? { tool_calls: calls.map(({ text: _, ...call }) => call) } : {}),
    });
    if (calls.length === 0) return replies;
    for (const call of calls) history.push({ role: "tool", tool_call_id: call.id, content: `echo ${call.text}` } as WireMessage);
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

  it("seeds 1,000 messages with realistic bytes: about 230 KB of request JSON", () => {
    const history: WireMessage[] = [];
    runCommand("seed 1000", history);
    const bytes = JSON.stringify(history).length;
    expect(bytes).toBeGreaterThan(200_000);
    expect(bytes).toBeLessThan(260_000);
  });

  it("seeds prose that varies from message to message", () => {
    expect(seedText(1).length).toBeGreaterThan(SEED_TEXT_CHARS - 10);
    expect(seedText(1)).not.toBe(seedText(2));
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

describe("the canonical seeded history", () => {
  it("holds exactly the asked number of messages and ends with the final answer", () => {
    for (const size of [10, 1000]) {
      const history = seedHistory(size);
      expect(history).toHaveLength(size);
      expect(history.at(-1)).toEqual({ role: "assistant", content: "done" });
    }
  });
});

describe("the bench LLM's timing taps", () => {
  let llm: BenchLlm;
  beforeAll(async () => {
    llm = await startBenchLlm();
  });
  afterAll(() => llm.close());

  type Reply = {
    choices: {
      message: { content: string | null; tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[] };
    }[];
  };
  const send = async (body: string): Promise<Reply> =>
    (
      await fetch(`${llm.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body })
    ).json() as Promise<Reply>;

  /** Plays a runtime through `steps 2`: each tool-call reply answered with its result in the next request. */
  async function runSteps(tag: string): Promise<string[]> {
    const messages: unknown[] = [
      { role: "system", content: systemPromptFor(tag) },
      { role: "user", content: "steps 2" },
    ];
    const bodies: string[] = [];
    for (;;) {
      const body = JSON.stringify({ model: "bench-model", messages, stream: false });
      bodies.push(body);
      const { message } = (await send(body)).choices[0]!;
      if (!message.tool_calls?.length) return bodies;
      messages.push({ role: "assistant", content: null, tool_calls: message.tool_calls });
      for (const call of message.tool_calls) messages.push({ role: "tool", tool_call_id: call.id, content: "echo step" });
    }
  }

  it("records one gap per tool-call reply, ended by the same session's next request", async () => {
    llm.clear();
    const bodies = await runSteps("taps-a");
    expect(bodies).toHaveLength(3);
    const gaps = llm.gaps.filter((g) => g.tag === "taps-a");
    expect(gaps.map((g) => [g.command, g.history, g.calls, g.requestBytes])).toEqual([
      ["steps 2", 3, 1, Buffer.byteLength(bodies[1]!)],
      ["steps 2", 5, 1, Buffer.byteLength(bodies[2]!)],
    ]);
    expect(gaps.every((g) => g.gapMs >= 0 && g.gapMs < 10_000)).toBe(true);
  });

  it("keeps sessions apart by the tag in their system prompt", async () => {
    llm.clear();
    await Promise.all([runSteps("taps-b"), runSteps("taps-c")]);
    expect(llm.gaps.filter((g) => g.tag === "taps-b")).toHaveLength(2);
    expect(llm.gaps.filter((g) => g.tag === "taps-c")).toHaveLength(2);
  });
});
