/**
 * The benchmark harness (scripts/bench): nearest-rank percentiles, the bench LLM's plan for seeding
 * history to an exact size and for step runs, and how the step's floor gets its requests: a watched
 * session's request captured by the bench LLM, retagged, and timed as the floor's when sent again. The
 * bench itself runs outside `npm test`.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { floorRequestBody, planReply, seedText, startBenchLlm, systemPromptFor, SEED_TEXT_CHARS, type BenchLlm, type WireMessage } from "../../scripts/bench/bench-llm.ts";
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
    history.push({ role: "assistant", content: reply.text ?? null, ...(calls.length ? { tool_calls: calls.map(({ text: _, ...call }) => call) } : {}) });
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

describe("the step floor's requests", () => {
  const captured = {
    model: "bench-model",
    messages: [
      { role: "system", content: systemPromptFor("step1000-a") },
      { role: "user", content: "steps 25" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "benchEcho", arguments: '{"text":"step"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "echo step" },
    ],
    stream: false,
  };

  it("answers a replayed request with a step's tool call every time, however many it already made", () => {
    const history: WireMessage[] = [{ role: "user", content: "replay" }];
    for (let i = 0; i < 50; i++) history.push({ role: "assistant", content: null, tool_calls: [{}] }, { role: "tool", content: "echo step" });
    expect(planReply("replay", history).toolCalls).toEqual([{ name: "benchEcho", arguments: { text: "step" } }]);
  });

  it("keeps a captured request's messages but for the session tag and the command", () => {
    const replayed = JSON.parse(floorRequestBody(captured, "floor1000-x")) as typeof captured;
    expect(replayed.messages[0]).toEqual({ role: "system", content: systemPromptFor("floor1000-x") });
    expect(replayed.messages[1]).toEqual({ role: "user", content: "replay" });
    expect(replayed.messages.slice(2)).toEqual(captured.messages.slice(2));
    expect(replayed.stream).toBe(false);
    expect(captured.messages[0]!.content).toBe(systemPromptFor("step1000-a")); // the capture is left as it was
  });

  it("refuses a request without a system prompt to tag", () => {
    expect(() => floorRequestBody({ messages: captured.messages.slice(1) }, "floor-x")).toThrow(/system prompt/);
  });

  describe("through the bench LLM", () => {
    let llm: BenchLlm;
    beforeAll(async () => {
      llm = await startBenchLlm();
    });
    afterAll(() => llm.close());
    const send = (body: string) => fetch(`${llm.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.json());

    it("keeps the newest request of a watched session only", async () => {
      const other = { ...captured, messages: [{ role: "system", content: systemPromptFor("unwatched") }, ...captured.messages.slice(1)] };
      llm.watch(["step1000-a"]);
      await send(JSON.stringify(captured));
      await send(JSON.stringify(other));
      expect(llm.lastRequestBody("step1000-a")).toEqual(captured);
      expect(llm.lastRequestBody("unwatched")).toBeUndefined();
    });

    it("times a replayed series under its own tag: one gap per sending after the first", async () => {
      llm.clear();
      const body = floorRequestBody(captured, "floor1000-y");
      for (let i = 0; i < 4; i++) await send(body);
      const gaps = llm.gaps.filter((g) => g.tag === "floor1000-y");
      expect(gaps).toHaveLength(3);
      expect(gaps.every((g) => g.command === "replay" && g.requestBytes === Buffer.byteLength(body))).toBe(true);
      expect(gaps.every((g) => g.bodyGapMs >= g.gapMs)).toBe(true); // the last byte comes after the headers
    });

    it("times a request's last byte apart from its headers when its body arrives late", async () => {
      llm.clear();
      const body = floorRequestBody(captured, "floor1000-z");
      await send(body);
      const split = Math.floor(body.length / 2);
      await new Promise<void>((resolve, reject) => {
        const req = request(`${llm.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on("end", resolve);
        });
        req.on("error", reject);
        req.flushHeaders();
        req.write(body.slice(0, split));
        setTimeout(() => req.end(body.slice(split)), 60);
      });
      const [gap] = llm.gaps.filter((g) => g.tag === "floor1000-z");
      expect(gap!.bodyGapMs - gap!.gapMs).toBeGreaterThanOrEqual(50);
    });
  });
});
