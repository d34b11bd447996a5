import { describe, expect, it } from "vitest";
import { createOpenAiLlmCall } from "../../src/llm/openai-chat-model.ts";
import { bundledTools, deltaRecorder, useMockOpenAi, userRequest } from "./fixtures.ts";

const mock = useMockOpenAi();
const { llm } = mock;

describe("the OpenAI adapter, streaming", () => {
  it("delivers streamed text as several deltas whose concatenation is the final text", async () => {
    mock.server.enqueue({ text: "The quick brown fox jumps." });
    const { deltas, onTextDelta } = deltaRecorder();
    const response = await llm()(userRequest("hi"), { onTextDelta });
    expect(deltas.length).toBeGreaterThan(1);
    expect(response.content).toEqual([{ type: "text", text: deltas.join("") }]);
    expect(deltas.join("")).toBe("The quick brown fox jumps.");
    expect(response.stopReason).toBe("stop");
  });

  it("accumulates interleaved tool-call deltas into complete calls with JSON-text arguments", async () => {
    mock.server.enqueue({
      toolCalls: [
        { id: "call_a", name: "getTime", arguments: { timezone: "Europe/Berlin" } },
        { id: "call_b", name: "getWeather", arguments: { city: "Tokyo", units: "celsius" } },
      ],
      interleaveToolCalls: true,
      argumentChunkSize: 5,
    });
    const response = await llm()(userRequest("time and weather"), {});
    expect(response.content).toEqual([
      { type: "toolCall", id: "call_a", name: "getTime", arguments: '{"timezone":"Europe/Berlin"}' },
      { type: "toolCall", id: "call_b", name: "getWeather", arguments: '{"city":"Tokyo","units":"celsius"}' },
    ]);
    expect(response.stopReason).toBe("toolUse");
  });

  it("reports the usage the server sent and names the api, provider and model", async () => {
    mock.server.enqueue({ text: "ok", usage: { prompt_tokens: 11, completion_tokens: 3 }, model: "served-model" });
    const response = await llm()(userRequest("hi"), {});
    expect(response.usage).toEqual({ inputTokens: 11, outputTokens: 3, totalTokens: 14 });
    expect(response).toMatchObject({ api: "openai-chat-completions", provider: `127.0.0.1:${mock.server.port}`, model: "served-model" });
  });

  it("maps a length finish to stopReason length", async () => {
    mock.server.enqueue({ text: "cut", finishReason: "length" });
    expect((await llm()(userRequest("hi"), {})).stopReason).toBe("length");
  });

  it("sends the model, the messages, the tools and the key to the server", async () => {
    mock.server.enqueue({ text: "ok" });
    const request = userRequest("hello");
    await llm()(request, {});
    const [recorded] = mock.server.requests;
    expect(recorded?.body).toMatchObject({ model: "test-model", messages: request.messages, tools: bundledTools, stream: true });
    expect(recorded?.headers.authorization).toBe("Bearer test-key");
  });

  it("asks for usage in the stream unless told not to", async () => {
    mock.server.enqueue({ text: "ok" }, { text: "ok" });
    await llm()(userRequest("hi"), {});
    await llm({ includeStreamUsage: false })(userRequest("hi"), {});
    expect(mock.server.requests[0]?.body.stream_options).toEqual({ include_usage: true });
    expect(mock.server.requests[1]?.body).not.toHaveProperty("stream_options");
  });

  it("answers every call with a clear configuration error when the base URL is unusable", async () => {
    const call = createOpenAiLlmCall({ apiKey: "k", baseURL: "not a url", model: "m" });
    await expect(call(userRequest("hi"), {})).rejects.toMatchObject({
      kind: "config",
      message: 'The LLM base URL is not a valid http(s) URL: "not a url"',
    });
  });

  it("leaves out the tools field when there are no tools", async () => {
    mock.server.enqueue({ text: "ok" });
    await llm()(userRequest("hello", []), {});
    expect(mock.server.requests[0]?.body).not.toHaveProperty("tools");
  });

  it("rejects with an aborted error when the signal aborts mid-stream", async () => {
    mock.server.enqueue({ text: "one two three four five six", chunkDelayMs: 50 });
    const controller = new AbortController();
    const { deltas, onTextDelta } = deltaRecorder();
    const call = llm()(userRequest("hi"), { signal: controller.signal, onTextDelta: (t) => (onTextDelta(t), controller.abort()) });
    await expect(call).rejects.toMatchObject({ name: "LlmError", kind: "aborted" });
    expect(deltas).toEqual(["one "]);
  });
});

describe("the OpenAI adapter, non-streaming", () => {
  it("returns text and tool calls from one completion", async () => {
    mock.server.enqueue({
      text: "Checking.",
      toolCalls: [{ id: "call_1", name: "getTime", arguments: "{}" }],
      usage: { prompt_tokens: 5, completion_tokens: 2 },
    });
    const { deltas, onTextDelta } = deltaRecorder();
    const response = await llm({ stream: false })(userRequest("time?"), { onTextDelta });
    expect(response.content).toEqual([
      { type: "text", text: "Checking." },
      { type: "toolCall", id: "call_1", name: "getTime", arguments: "{}" },
    ]);
    expect(response.stopReason).toBe("toolUse");
    expect(response.usage).toEqual({ inputTokens: 5, outputTokens: 2, totalTokens: 7 });
    expect(deltas).toEqual([]);
  });

  it("asks the server for a non-streamed completion", async () => {
    mock.server.enqueue({ text: "ok" });
    await llm({ stream: false })(userRequest("hi"), {});
    expect(mock.server.requests[0]?.body.stream).toBeFalsy();
  });
});
