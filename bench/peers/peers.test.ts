/**
 * The step comparison's peers (this package; `npm test` here, after `npm install`): that each is seeded
 * with the same history our Worker gets from `seed N` (what the peer sends back on the wire matches the
 * canonical messages), and that the pi-agent-core driver's steps are recorded by the bench LLM. The Agents
 * SDK's own Worker needs `wrangler dev` and runs only in `npm run bench -- --peers`; its message
 * translation is checked here through the AI SDK in Node.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { convertToModelMessages, generateText, jsonSchema, tool, type UIMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBenchLlm, type BenchLlm } from "../../scripts/bench/bench-llm.ts";
import { startPiAgent } from "./pi-driver.ts";
import type { StartedRuntime } from "./runtime.ts";
import { seedHistory, toUiMessages } from "./seed-history.ts";
import { startMockOpenAi, type MockOpenAiServer } from "../../support/mock-openai-server.ts";

type Wire = {
  role?: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
};

/** What a message means to the model: role, text, tool calls with parsed arguments, the answered call. */
function meaning(messages: readonly unknown[]) {
  return (messages as Wire[]).map((m) => ({
    role: m.role,
    text:
      typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p: { text?: string }) => p.text ?? "").join("")
          : "",
    calls: (m.tool_calls ?? []).map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments) as unknown]),
    answers: m.tool_call_id,
  }));
}

describe("peers seeded with the canonical history", () => {
  let mock: MockOpenAiServer;
  beforeAll(async () => {
    mock = await startMockOpenAi();
  });
  afterAll(() => mock.close());

  it("the AI SDK (as the Agents SDK peer uses it) sends the seeded UI messages back as the canonical history", async () => {
    mock.reset();
    mock.enqueue({ text: "ok" });
    const history = seedHistory(60);
    const echo = tool({
      inputSchema: jsonSchema<{ text?: string }>({ type: "object", properties: { text: { type: "string" } } }),
      execute: async ({ text }) => `echo ${text ?? ""}`,
    });
    const messages = await convertToModelMessages(toUiMessages(history, "t") as UIMessage[]);
    await generateText({
      model: createOpenAI({ baseURL: mock.url, apiKey: "test" }).chat("bench-model"),
      system: "bench:t",
      messages,
      tools: { benchEcho: echo },
    });
    const sent = mock.requests[0]!.body.messages!;
    expect(meaning(sent.slice(1))).toEqual(meaning(history));
  });

  it("pi-agent-core sends its seeded transcript back as the canonical history", async () => {
    mock.reset();
    mock.enqueue({ text: "ok" });
    const pi = await startPiAgent(mock.url);
    try {
      const history = seedHistory(60);
      await (await pi.runtimes[0]!.seed(60, "t")).turn("hello");
      const sent = mock.requests[0]!.body.messages!;
      expect(meaning(sent.slice(1))).toEqual(meaning([...history, { role: "user", content: "hello" }]));
    } finally {
      await pi.stop();
    }
  });
});

describe("the pi-agent-core driver", () => {
  let llm: BenchLlm;
  let pi: StartedRuntime;
  beforeAll(async () => {
    llm = await startBenchLlm();
    pi = await startPiAgent(llm.url);
  });
  afterAll(async () => {
    await pi.stop();
    await llm.close();
  });

  it("runs a step turn whose steps the bench LLM records at the seeded history length", async () => {
    const session = await pi.runtimes[0]!.seed(10, "steps");
    await session.turn("steps 3");
    const gaps = llm.gaps.filter((g) => g.tag === session.tag);
    // 10 seeded + the user message, then each step adds a call and its result.
    expect(gaps.map((g) => g.history)).toEqual([13, 15, 17]);
  });
});
