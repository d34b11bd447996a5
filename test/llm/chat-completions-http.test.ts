import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/llm-error.ts";
import { createOpenAiLlmCall } from "../../src/llm/openai-chat-model.ts";
import { deltaRecorder, useMockOpenAi, userRequest } from "./fixtures.ts";

const mock = useMockOpenAi();
const { llm } = mock;

/** A server answering each request with the next raw reply, for bodies the mock OpenAI server never sends. */
type RawReply = { status?: number; contentType?: string; body: string };
const rawServers: Server[] = [];
async function rawServer(...replies: RawReply[]): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const reply = replies[Math.min(count, replies.length - 1)]!;
      count += 1;
      res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "application/json" });
      res.end(reply.body);
    });
  });
  rawServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => count };
}
afterEach(async () => {
  await Promise.all(rawServers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const rawLlm = (url: string, stream: boolean) =>
  createOpenAiLlmCall({ apiKey: "k", baseURL: url, model: "m", stream, initialRetryDelayMs: 1 });
const sse = (...events: unknown[]) => events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");
const textChunk = (text: string, finish: string | null = null) => ({
  id: "c",
  object: "chat.completion.chunk",
  model: "m",
  choices: [{ index: 0, delta: { content: text }, finish_reason: finish }],
});

describe("the Chat Completions exchange", () => {
  it("posts to <base URL>/chat/completions whether or not the base URL ends in a slash", async () => {
    await llm({ baseURL: `${mock.server.url}/` })(userRequest("hi"), {});
    await llm()(userRequest("hi"), {});
    expect(mock.server.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
  });

  it("reports a 200 answer that is not JSON as an invalid response, without retrying it", async () => {
    const server = await rawServer({ contentType: "text/html", body: "<html>gateway login</html>" });
    const error = await rawLlm(server.url, false)(userRequest("hi"), {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ kind: "invalid_response", retryable: false });
    expect((error as Error).message).toContain("<html>gateway login</html>");
    expect(server.requests()).toBe(1);
  });

  it("names a plain-text error page's words when the server sends no JSON error", async () => {
    const server = await rawServer({ status: 403, contentType: "text/plain", body: "Forbidden by the gateway" });
    await expect(rawLlm(server.url, false)(userRequest("hi"), {})).rejects.toThrow(
      "LLM request failed with HTTP 403: Forbidden by the gateway",
    );
  });

  it("retries a stream whose server reports an error before any text, and streams only the retry's text", async () => {
    const server = await rawServer(
      { contentType: "text/event-stream", body: sse({ error: { message: "The model is overloaded" } }) },
      { contentType: "text/event-stream", body: sse(textChunk("Hello"), textChunk(" again", "stop"), "[DONE]") },
    );
    const recorder = deltaRecorder();
    const response = await rawLlm(server.url, true)(userRequest("hi"), { onTextDelta: recorder.onTextDelta });
    expect(server.requests()).toBe(2);
    expect(recorder.deltas.join("")).toBe("Hello again");
    expect(response.content).toEqual([{ type: "text", text: "Hello again" }]);
  });

  it("fails a stream whose server reports an error after text without repeating that text", async () => {
    const server = await rawServer({
      contentType: "text/event-stream",
      body: sse(textChunk("Hel"), { error: { message: "The model is overloaded" } }),
    });
    const recorder = deltaRecorder();
    const error = await rawLlm(server.url, true)(userRequest("hi"), { onTextDelta: recorder.onTextDelta }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "stream_interrupted", retryable: false });
    expect((error as Error).message).toContain("The model is overloaded");
    expect(recorder.deltas).toEqual(["Hel"]);
    expect(server.requests()).toBe(1);
  });

  it("reports a stream's own 'context too long' as the overflow it is, never retried", async () => {
    const coded = await rawServer({
      contentType: "text/event-stream",
      body: sse({ error: { message: "This model's maximum context length is 8192 tokens", code: "context_length_exceeded" } }),
    });
    const error = await rawLlm(coded.url, true)(userRequest("hi"), {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "context_length_exceeded", retryable: false });
    expect(coded.requests()).toBe(1);

    // A server that gives no code says it in words.
    const worded = await rawServer({
      contentType: "text/event-stream",
      body: sse({ error: { message: "prompt has too many tokens for the context window" } }),
    });
    const wordedError = await rawLlm(worded.url, true)(userRequest("hi"), {}).catch((e: unknown) => e);
    expect(wordedError).toMatchObject({ code: "context_length_exceeded", retryable: false });
    expect(worded.requests()).toBe(1);
  });
});
