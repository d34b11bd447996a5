/**
 * End to end over real HTTP and SSE: `wrangler dev` runs the Worker with the OpenAI adapter pointed at the
 * mock OpenAI server, which streams a parallel batch of two getTime calls (argument deltas split across
 * chunks) and then a text answer in several chunks. One conversation is driven in beforeAll; each test
 * checks one behaviour of it. A second user turn checks that history carries over.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockOpenAi, type MockOpenAiServer, type MockReply, type RecordedRequest } from "../../support/mock-openai-server.ts";
import { createApi, textOf, type AssistantResponse, type E2eApi, type E2eSession } from "./support/http-api.ts";
import type { SseEvent, SseReader } from "../support/sse-reader.ts";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";

const QUESTION = "What time is it in Tokyo and in Paris?";
const ANSWER = "Tokyo is in the evening while Paris is still at lunch.";
const FOLLOW_UP = "Which of the two cities is ahead?";
const FOLLOW_UP_ANSWER = "Tokyo is ahead of Paris by several hours.";

const TOOL_BATCH: MockReply = {
  toolCalls: [
    { id: "call_tokyo", name: "getTime", arguments: { timezone: "Asia/Tokyo" } },
    { id: "call_paris", name: "getTime", arguments: { city: "Paris" } },
  ],
  // Small fragments sent round-robin: each call's JSON arrives in pieces, interleaved with the other's.
  argumentChunkSize: 5,
  interleaveToolCalls: true,
};
/** One word per chunk; the pause makes "streamed" observable at the client as arrival times spread out. */
const WORD_DELAY_MS = 30;
const textReply = (text: string): MockReply => ({ text, chunkDelayMs: WORD_DELAY_MS });

/** What getTime returns, e.g. "Current time in Paris (Europe/Paris): 2026-11-29 12:00:00 (Sunday)". */
const GET_TIME_TEXT = /^Current time in (.+): \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(\w+day\)$/;

type ChatMessage = {
  role: string;
  content: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
};

const messagesOf = (request: RecordedRequest | undefined): ChatMessage[] => (request?.body.messages ?? []) as ChatMessage[];
const ofCall = (events: SseEvent[], id: string) => events.filter((e) => e.json.toolCallId === id);
const resultText = (event: SseEvent | undefined): string => {
  const result = event?.json.result as { content?: { type: string; text?: string }[] } | undefined;
  return (result?.content ?? []).map((block) => block.text ?? "").join("");
};

describe("a multi-tool conversation through wrangler dev with the streaming OpenAI adapter", () => {
  let mock: MockOpenAiServer;
  let dev: WranglerDev;
  let api: E2eApi;
  let session: E2eSession;
  let stream: SseReader;
  let firstRun: SseEvent[];

  beforeAll(async () => {
    mock = await startMockOpenAi();
    dev = await startWranglerDev({
      vars: { OPENAI_API_KEY: "test", OPENAI_BASE_URL: mock.url, OPENAI_MODEL: "mock", MAX_RETRY_DELAY_MS: "20" },
    });
    api = createApi(dev.url);
    mock.enqueue(TOOL_BATCH, textReply(ANSWER));
    session = await api.createSession();
    stream = await api.openEvents(session);
    await api.send(session, QUESTION);
    firstRun = await stream.until("runEnd");
  });

  afterAll(async () => {
    await stream?.cancel();
    await dev?.stop();
    await mock?.close();
  });

  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => console.error(`--- wrangler dev output ---\n${dev?.logs() ?? "(not started)"}`));
  });

  it("asks the mock for a streamed completion with the bundled tools and the configured model", () => {
    const first = mock.requests[0]?.body;
    expect(first?.stream).toBe(true);
    expect(first?.model).toBe("mock");
    const toolNames = (first!.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(toolNames).toContain("getTime");
  });

  it("streams the run as events that open with runStart and close with runEnd", () => {
    const types = firstRun.map((e) => e.event);
    expect(types[0]).toBe("runStart");
    expect(types.at(-1)).toBe("runEnd");
    expect(firstRun.every((e) => e.json.type === e.event)).toBe(true);
    const seqs = firstRun.map((e) => e.json.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it("emits toolExecStart then toolExecEnd for each call of the parallel batch, with the reassembled arguments", () => {
    for (const [id, args] of [
      ["call_tokyo", { timezone: "Asia/Tokyo" }],
      ["call_paris", { city: "Paris" }],
    ] as const) {
      const events = ofCall(firstRun, id);
      expect(events.map((e) => e.event)).toEqual(["toolExecStart", "toolExecEnd"]);
      expect(events[0]!.json.toolName).toBe("getTime");
      // The start carries the arguments as the model sent them (a JSON string today); either form must parse back.
      const raw = events[0]!.json.arguments;
      expect(typeof raw === "string" ? JSON.parse(raw) : raw).toEqual(args);
      expect(events[1]!.json).toMatchObject({ toolName: "getTime", isError: false });
    }
  });

  it("runs getTime for real: Tokyo by timezone, Paris by city", () => {
    expect(resultText(ofCall(firstRun, "call_tokyo")[1])).toMatch(GET_TIME_TEXT);
    expect(resultText(ofCall(firstRun, "call_tokyo")[1])).toContain("Current time in Asia/Tokyo:");
    expect(resultText(ofCall(firstRun, "call_paris")[1])).toContain("Current time in Paris (Europe/Paris):");
  });

  it("streams the final answer in several messageDelta events that concatenate to it", () => {
    const deltas = firstRun.filter((e) => e.event === "messageDelta").map((e) => String(e.json.text));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe(ANSWER);
    const runEnd = firstRun.at(-1)!.json as { response?: AssistantResponse; stopReason?: string };
    expect(runEnd.stopReason).toBe("stop");
    expect(textOf(runEnd.response!)).toBe(ANSWER);
  });

  it("delivers the answer's deltas to the SSE client while the model is still producing them", () => {
    const arrivals = firstRun.filter((e) => e.event === "messageDelta").map((e) => e.receivedAt);
    // ANSWER has 11 words, so the mock spends ~300 ms on them; a buffered stream would arrive all at once.
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(5 * WORD_DELAY_MS);
  });

  it("sends the assistant tool_calls message and both tool results in the second LLM request", () => {
    const second = messagesOf(mock.requests[1]);
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(second[1]!.content).toEqual(QUESTION);
    const calls = second[2]!.tool_calls ?? [];
    expect(calls.map((c) => [c.id, c.type, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["call_tokyo", "function", "getTime", { timezone: "Asia/Tokyo" }],
      ["call_paris", "function", "getTime", { city: "Paris" }],
    ]);
    expect(second.slice(3).map((m) => m.tool_call_id)).toEqual(["call_tokyo", "call_paris"]);
    expect(second[3]!.content).toBe(resultText(ofCall(firstRun, "call_tokyo")[1]));
    expect(second[4]!.content).toBe(resultText(ofCall(firstRun, "call_paris")[1]));
  });

  it("hands the final message to GET responses/next", async () => {
    const response = await api.nextResponse(session, 5_000);
    expect(response).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(textOf(response)).toBe(ANSWER);
  });

  it("carries the history into a second user turn of the same session", async () => {
    mock.enqueue(textReply(FOLLOW_UP_ANSWER));
    await api.send(session, FOLLOW_UP);
    const secondRun = await stream.until("runEnd");
    expect(
      secondRun
        .filter((e) => e.event === "messageDelta")
        .map((e) => e.json.text)
        .join(""),
    ).toBe(FOLLOW_UP_ANSWER);

    expect(mock.requests).toHaveLength(3);
    const third = messagesOf(mock.requests[2]);
    expect(third.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant", "user"]);
    expect(third.slice(0, 5)).toEqual(messagesOf(mock.requests[1]));
    expect(third[5]!.content).toBe(ANSWER);
    expect(third[6]!.content).toBe(FOLLOW_UP);
    expect(textOf(await api.nextResponse(session, 5_000))).toBe(FOLLOW_UP_ANSWER);
  });
});

describe("the same conversation with the OpenAI adapter not streaming (LLM_STREAM=false)", () => {
  let mock: MockOpenAiServer;
  let dev: WranglerDev;

  beforeAll(async () => {
    mock = await startMockOpenAi();
    dev = await startWranglerDev({
      vars: { OPENAI_API_KEY: "test", OPENAI_BASE_URL: mock.url, OPENAI_MODEL: "mock", LLM_STREAM: "false" },
    });
  });
  afterAll(async () => {
    await dev?.stop();
    await mock?.close();
  });

  it("runs the tool batch and answers, with every request made without streaming", async () => {
    const api = createApi(dev.url);
    mock.enqueue(TOOL_BATCH, { text: ANSWER });
    const session = await api.createSession();
    const stream = await api.openEvents(session);
    await api.send(session, QUESTION);
    const events = await stream.until("runEnd");
    expect(ofCall(events, "call_tokyo").map((e) => e.event)).toEqual(["toolExecStart", "toolExecEnd"]);
    expect(resultText(ofCall(events, "call_paris").at(-1))).toMatch(GET_TIME_TEXT);
    expect(textOf(await api.nextResponse(session, 5_000))).toBe(ANSWER);
    expect(mock.requests).toHaveLength(2);
    expect(mock.requests.every((r) => !r.body.stream)).toBe(true);
    await stream.cancel();
  });
});
