import { describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/llm-error.ts";
import { createOpenAiLlmCall } from "../../src/llm/openai-chat-model.ts";
import { contextLengthExceeded, startMockOpenAi } from "../../support/mock-openai-server.ts";
import { isContextOverflow } from "../../src/core/index.ts";
import { deltaRecorder, useMockOpenAi, userRequest } from "./fixtures.ts";
import { sleep } from "../support/time.ts";

const mock = useMockOpenAi();
const { llm } = mock;

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(5);
}

describe("the OpenAI adapter's retries", () => {
  it("waits out a 429's Retry-After before retrying", async () => {
    mock.server.enqueue({ status: 429, errorMessage: "Rate limit reached", headers: { "retry-after": "1" } }, { text: "done" });
    const call = llm()(userRequest("hi"), {});
    await sleep(400);
    expect(mock.server.requests).toHaveLength(1);
    const response = await call;
    expect(mock.server.requests).toHaveLength(2);
    expect(response.content).toEqual([{ type: "text", text: "done" }]);
  });

  it("honours retry-after-ms over backoff", async () => {
    mock.server.enqueue({ status: 429, headers: { "retry-after-ms": "400" } }, { text: "done" });
    const call = llm()(userRequest("hi"), {});
    await sleep(150);
    expect(mock.server.requests).toHaveLength(1);
    await call;
    expect(mock.server.requests).toHaveLength(2);
  });

  it("caps a long Retry-After at maxRetryDelayMs", async () => {
    mock.server.enqueue({ status: 429, headers: { "retry-after": "30" } }, { text: "done" });
    const started = Date.now();
    await llm({ maxRetryDelayMs: 50 })(userRequest("hi"), {});
    expect(mock.server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("retries a 500 and returns the next answer", async () => {
    mock.server.enqueue({ status: 500, errorMessage: "The server had an error" }, { text: "recovered" });
    const response = await llm()(userRequest("hi"), {});
    expect(mock.server.requests).toHaveLength(2);
    expect(response.content).toEqual([{ type: "text", text: "recovered" }]);
  });

  it("does not retry a 400 and names the status and the server's message", async () => {
    mock.server.enqueue({ status: 400, errorMessage: "Invalid 'messages[1].content'" }, { text: "never" });
    const error = await llm()(userRequest("hi"), {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ kind: "http", status: 400, message: "LLM request failed with HTTP 400: Invalid 'messages[1].content'" });
    expect(mock.server.requests).toHaveLength(1);
  });

  it("reports OpenAI's context_length_exceeded 400 with its code, never retried", async () => {
    mock.server.enqueue(contextLengthExceeded(8_192, 9_001), { text: "never" });
    const error = await llm()(userRequest("hi"), {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "http", status: 400, retryable: false, code: "context_length_exceeded" });
    expect((error as Error).message).toContain("maximum context length is 8192 tokens");
    expect(isContextOverflow(error)).toBe(true);
    expect(mock.server.requests).toHaveLength(1);
  });

  it("reads a server's 400 that says the context is too long without a code as the same", async () => {
    mock.server.enqueue({ status: 400, body: { message: "This model's maximum context length is 4096 tokens" } });
    const error = await llm()(userRequest("hi"), {}).catch((e: unknown) => e);
    expect(isContextOverflow(error)).toBe(true);
    mock.server.enqueue({ status: 400, errorMessage: "Invalid 'messages[1].content'" });
    expect(isContextOverflow(await llm()(userRequest("hi"), {}).catch((e: unknown) => e))).toBe(false);
  });

  it("does not retry a 401", async () => {
    mock.server.enqueue({ status: 401, errorMessage: "Incorrect API key provided" }, { text: "never" });
    await expect(llm()(userRequest("hi"), {})).rejects.toThrow("HTTP 401: Incorrect API key provided");
    expect(mock.server.requests).toHaveLength(1);
  });

  it("gives up after maxRetries and says how many attempts it made", async () => {
    mock.server.enqueue({ status: 503 }, { status: 503 }, { status: 503, errorMessage: "Overloaded" }, { text: "never" });
    await expect(llm({ maxRetries: 2 })(userRequest("hi"), {})).rejects.toThrow("HTTP 503: Overloaded (gave up after 3 attempts)");
    expect(mock.server.requests).toHaveLength(3);
  });

  it("rejects promptly when the signal aborts during a retry wait", async () => {
    mock.server.enqueue({ status: 429, headers: { "retry-after": "30" } }, { text: "never" });
    const controller = new AbortController();
    const call = llm({ maxRetryDelayMs: 60_000 })(userRequest("hi"), { signal: controller.signal });
    const outcome = call.catch((e: unknown) => e);
    await until(() => mock.server.requests.length === 1);
    const abortedAt = Date.now();
    controller.abort();
    expect(await outcome).toMatchObject({ name: "LlmError", kind: "aborted" });
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect(mock.server.requests).toHaveLength(1);
  });

  it("retries a refused connection as a network error", async () => {
    const closed = await startMockOpenAi();
    const url = closed.url;
    await closed.close();
    const error = await createOpenAiLlmCall({ apiKey: "k", baseURL: url, model: "m", maxRetries: 1, initialRetryDelayMs: 1 })(
      userRequest("hi"),
      {},
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "LlmError", kind: "network" });
    expect((error as Error).message).toMatch(/^LLM connection failed: .*\(gave up after 2 attempts\)$/);
  });
});

describe("the OpenAI adapter's timeouts and broken streams", () => {
  it("fails with a clear error when the server does not answer within timeoutMs", async () => {
    mock.server.enqueue({ text: "late", delayMs: 2_000 });
    await expect(llm({ timeoutMs: 100, maxRetries: 0 })(userRequest("hi"), {})).rejects.toThrow(
      "LLM request timed out: no response data for 100 ms",
    );
  });

  it("lets a steady stream run longer than timeoutMs, since the timeout is per silence, not per answer", async () => {
    mock.server.enqueue({ text: "a b c d e f g h i j k l", chunkDelayMs: 40 });
    const response = await llm({ timeoutMs: 200, maxRetries: 0 })(userRequest("hi"), {});
    expect(response.content).toEqual([{ type: "text", text: "a b c d e f g h i j k l" }]);
  });

  it("retries a stream that goes silent before any text and streams only the retry's text", async () => {
    mock.server.enqueue({ text: "stalled answer", chunkDelayMs: 1_000 }, { text: "fresh answer" });
    const { deltas, onTextDelta } = deltaRecorder();
    const response = await llm({ timeoutMs: 200, maxRetries: 1 })(userRequest("hi"), { onTextDelta });
    expect(mock.server.requests).toHaveLength(2);
    expect(deltas.join("")).toBe("fresh answer");
    expect(response.content).toEqual([{ type: "text", text: "fresh answer" }]);
  });

  it("retries a stream cut before any text was delivered", async () => {
    mock.server.enqueue({ text: "lost", cutAfterChunks: 1 }, { text: "second try" });
    const { deltas, onTextDelta } = deltaRecorder();
    const response = await llm()(userRequest("hi"), { onTextDelta });
    expect(mock.server.requests).toHaveLength(2);
    expect(deltas.join("")).toBe("second try");
    expect(response.content).toEqual([{ type: "text", text: "second try" }]);
  });

  it("does not retry a stream cut after text was delivered, so no delta is repeated", async () => {
    mock.server.enqueue({ text: "one two three four", cutAfterChunks: 3 }, { text: "never" });
    const { deltas, onTextDelta } = deltaRecorder();
    const error = await llm()(userRequest("hi"), { onTextDelta }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "LlmError", kind: "stream_interrupted" });
    expect((error as Error).message).toContain("LLM stream broke after text was already streamed");
    expect(deltas).toEqual(["one ", "two "]);
    expect(mock.server.requests).toHaveLength(1);
  });
});
