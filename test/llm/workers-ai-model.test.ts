import { isContextOverflow } from "../../src/core/index.ts";
import { describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/llm-error.ts";
import {
  createWorkersAiLlmCall,
  WORKERS_AI_MAX_TOKENS,
  type WorkersAiBinding,
  type WorkersAiLlmOptions,
} from "../../src/llm/workers-ai-model.ts";
import { bundledTools, deltaRecorder, userRequest } from "./fixtures.ts";

/**
 * A stand-in for the AI binding: answers each `run` with the next scripted reply, in the shapes Workers AI
 * documents (an object, a ReadableStream of SSE bytes, or a thrown error), and records what it was asked.
 */
type Reply = unknown | { throws: string } | { sse: string[]; failWith?: string };
function standIn(...replies: Reply[]) {
  const calls: { model: string; inputs: Record<string, unknown> }[] = [];
  const binding: WorkersAiBinding = {
    async run(model, inputs) {
      calls.push({ model, inputs });
      const reply = replies.shift();
      if (reply && typeof reply === "object" && "throws" in reply) throw new Error(String(reply.throws));
      if (reply && typeof reply === "object" && "sse" in reply) return sseStream(reply as { sse: string[]; failWith?: string });
      return reply;
    },
  };
  return { binding, calls };
}

/** The binding's stream: `data:` events split across byte chunks at awkward places, optionally breaking. */
function sseStream({ sse, failWith }: { sse: string[]; failWith?: string }): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(sse.map((data) => `data: ${data}\n\n`).join(""));
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.slice(i, i + 7));
  return new ReadableStream({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else if (failWith) controller.error(new Error(failWith));
      else controller.close();
    },
  });
}

const MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";
const llm = (binding: WorkersAiBinding, options: Partial<WorkersAiLlmOptions> = {}) =>
  createWorkersAiLlmCall({ binding, model: MODEL, initialRetryDelayMs: 1, ...options });

describe("the Workers AI adapter, not streamed", () => {
  it("returns the classic answer's text and usage", async () => {
    const { binding } = standIn({ response: "Hello there", usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } });
    const response = await llm(binding, { stream: false })(userRequest("hi"), {});
    expect(response).toMatchObject({
      content: [{ type: "text", text: "Hello there" }],
      stopReason: "stop",
      api: "workers-ai",
      provider: "workers-ai",
      model: MODEL,
      usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
    });
  });

  it("reads classic tool calls ({name, arguments} with object arguments) as JSON-text arguments", async () => {
    const { binding } = standIn({
      response: "",
      tool_calls: [
        { name: "getWeather", arguments: { city: "Paris" } },
        { name: "getTime", arguments: {} },
      ],
    });
    const response = await llm(binding, { stream: false })(userRequest("weather"), {});
    expect(response.stopReason).toBe("toolUse");
    expect(response.content).toEqual([
      { type: "toolCall", id: expect.stringMatching(/^call_/), name: "getWeather", arguments: '{"city":"Paris"}' },
      { type: "toolCall", id: expect.stringMatching(/^call_/), name: "getTime", arguments: "{}" },
    ]);
  });

  it("reads OpenAI-like tool calls, in the classic envelope and in a Chat Completions answer", async () => {
    const openAiCall = { id: "chatcmpl-tool-1", type: "function", function: { name: "getWeather", arguments: '{"city":"Oslo"}' } };
    const { binding } = standIn(
      { response: null, tool_calls: [openAiCall] },
      {
        choices: [{ message: { role: "assistant", content: null, tool_calls: [openAiCall] }, finish_reason: "tool_calls" }],
        usage: { prompt_tokens: 5, completion_tokens: 9 },
      },
    );
    const call = llm(binding, { stream: false });
    for (let i = 0; i < 2; i++) {
      const response = await call(userRequest("weather in Oslo"), {});
      expect(response.content).toEqual([{ type: "toolCall", id: "chatcmpl-tool-1", name: "getWeather", arguments: '{"city":"Oslo"}' }]);
      expect(response.stopReason).toBe("toolUse");
    }
  });

  it("sends the model, OpenAI-style messages and tools, and a max_tokens above Workers AI's short default", async () => {
    const { binding, calls } = standIn({ response: "ok" });
    await llm(binding, { stream: false })(userRequest("hi", bundledTools, [{ role: "assistant", content: null, tool_calls: [] }]), {});
    expect(calls[0]!.model).toBe(MODEL);
    expect(calls[0]!.inputs).toMatchObject({ tools: bundledTools, max_tokens: WORKERS_AI_MAX_TOKENS });
    expect(calls[0]!.inputs.stream).toBeUndefined();
    const messages = calls[0]!.inputs.messages as { role: string; content: unknown }[];
    expect(messages.map((m) => m.role)).toEqual(["system", "assistant", "user"]);
    expect(messages[1]!.content).toBe(""); // null content is not accepted by every model
  });
});

describe("the Workers AI adapter, streamed", () => {
  it("passes text deltas on as the SSE events arrive, with the usage of the last event", async () => {
    const { binding, calls } = standIn({
      sse: [
        JSON.stringify({ response: "Hel", p: "abc" }),
        JSON.stringify({ response: "lo, " }),
        JSON.stringify({ response: "world" }),
        JSON.stringify({ response: "", usage: { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 } }),
        "[DONE]",
      ],
    });
    const { deltas, onTextDelta } = deltaRecorder();
    const response = await llm(binding)(userRequest("hi"), { onTextDelta });
    expect(calls[0]!.inputs.stream).toBe(true);
    expect(deltas).toEqual(["Hel", "lo, ", "world"]);
    expect(response.content).toEqual([{ type: "text", text: "Hello, world" }]);
    expect(response.usage).toEqual({ inputTokens: 20, outputTokens: 4, totalTokens: 24 });
  });

  it("merges OpenAI-like tool-call deltas by index", async () => {
    const delta = (toolCall: unknown, finish?: string) =>
      JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [toolCall] }, ...(finish ? { finish_reason: finish } : {}) }] });
    const { binding } = standIn({
      sse: [
        delta({ index: 0, id: "call_a", type: "function", function: { name: "getWeather", arguments: "" } }),
        delta({ index: 0, function: { arguments: '{"city":' } }),
        delta({ index: 1, id: "call_b", type: "function", function: { name: "getTime", arguments: "{}" } }),
        delta({ index: 0, function: { arguments: '"Rome"}' } }, "tool_calls"),
        "[DONE]",
      ],
    });
    const response = await llm(binding)(userRequest("weather and time in Rome"), {});
    expect(response.content).toEqual([
      { type: "toolCall", id: "call_a", name: "getWeather", arguments: '{"city":"Rome"}' },
      { type: "toolCall", id: "call_b", name: "getTime", arguments: "{}" },
    ]);
    expect(response.stopReason).toBe("toolUse");
  });

  it("reads classic tool calls that arrive whole in a stream event", async () => {
    const { binding } = standIn({ sse: [JSON.stringify({ response: "", tool_calls: [{ name: "listTools", arguments: {} }] }), "[DONE]"] });
    const response = await llm(binding)(userRequest("what can you do"), {});
    expect(response.content).toEqual([{ type: "toolCall", id: expect.any(String), name: "listTools", arguments: "{}" }]);
  });

  it("retries a stream cut before any text, and does not retry one cut after text was shown", async () => {
    const early = standIn({ sse: [], failWith: "Network connection lost." }, { sse: [JSON.stringify({ response: "fine" }), "[DONE]"] });
    expect((await llm(early.binding)(userRequest("hi"), {})).content).toEqual([{ type: "text", text: "fine" }]);
    expect(early.calls).toHaveLength(2);

    const late = standIn({ sse: [JSON.stringify({ response: "partial" })], failWith: "Network connection lost." }, { sse: ["[DONE]"] });
    const { deltas, onTextDelta } = deltaRecorder();
    const error = await llm(late.binding)(userRequest("hi"), { onTextDelta }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe("stream_interrupted");
    expect(deltas).toEqual(["partial"]);
    expect(late.calls).toHaveLength(1);
  });

  it("treats a stream that ends without [DONE] as broken", async () => {
    const { binding, calls } = standIn({ sse: [] }, { sse: [JSON.stringify({ response: "ok" }), "[DONE]"] });
    expect((await llm(binding)(userRequest("hi"), {})).content).toEqual([{ type: "text", text: "ok" }]);
    expect(calls).toHaveLength(2);
  });
});

describe("the Workers AI adapter's errors and retries", () => {
  it("retries out-of-capacity errors (3040) with each wait capped by maxRetryDelayMs", async () => {
    const { binding, calls } = standIn(
      { throws: "3040: Capacity temporarily exceeded, please try again." },
      { throws: "3040: Capacity temporarily exceeded" },
      { response: "done" },
    );
    const waits: number[] = [];
    const call = llm(binding, { stream: false, initialRetryDelayMs: 10_000, maxRetryDelayMs: 15 });
    const response = await call(userRequest("hi"), { onRetry: ({ delayMs }) => void waits.push(delayMs) });
    expect(response.content).toEqual([{ type: "text", text: "done" }]);
    expect(calls).toHaveLength(3);
    expect(waits).toHaveLength(2);
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(15);
  });

  it("does not retry an unknown model (5007) and names the status and the binding's message", async () => {
    const { binding, calls } = standIn({ throws: "AiError: 5007: No such model @cf/nope or task" });
    const error = (await llm(binding, { model: "@cf/nope", stream: false })(userRequest("hi"), {}).catch(
      (err: unknown) => err,
    )) as LlmError;
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ kind: "http", status: 400, retryable: false });
    expect(error.message).toContain("No such model @cf/nope");
    expect(calls).toHaveLength(1);
  });

  it("reports a request past the model's window (5021) as context_length_exceeded, never retried", async () => {
    const { binding, calls } = standIn({
      throws:
        "AiError: 5021: The estimated number of input and maximum output tokens (8810) exceeded this model context window limit (8192).",
    });
    const error = (await llm(binding, { stream: false })(userRequest("hi"), {}).catch((err: unknown) => err)) as LlmError;
    expect(error).toMatchObject({ kind: "http", status: 400, retryable: false, code: "context_length_exceeded" });
    expect(isContextOverflow(error)).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it("does not retry the daily allocation limit (3036), which another attempt cannot lift", async () => {
    const { binding, calls } = standIn({ throws: "3036: You have used up your daily free allocation of 10,000 neurons." });
    const error = (await llm(binding, { stream: false })(userRequest("hi"), {}).catch((err: unknown) => err)) as LlmError;
    expect(error).toMatchObject({ status: 429, retryable: false });
    expect(calls).toHaveLength(1);
  });

  it("gives up after maxRetries and says how many attempts it made", async () => {
    const { binding, calls } = standIn(...Array.from({ length: 5 }, () => ({ throws: "3040: Capacity temporarily exceeded" })));
    const error = (await llm(binding, { stream: false, maxRetries: 2 })(userRequest("hi"), {}).catch((err: unknown) => err)) as LlmError;
    expect(error.message).toContain("gave up after 3 attempts");
    expect(calls).toHaveLength(3);
  });

  it("reports an answer in an unknown shape as an invalid response", async () => {
    const { binding } = standIn({ request_id: "queued-1" });
    const error = (await llm(binding, { stream: false })(userRequest("hi"), {}).catch((err: unknown) => err)) as LlmError;
    expect(error).toMatchObject({ kind: "invalid_response", retryable: false });
  });

  it("stops at once when the caller aborts", async () => {
    const binding: WorkersAiBinding = { run: () => new Promise(() => {}) };
    const controller = new AbortController();
    const pending = llm(binding, { stream: false })(userRequest("hi"), { signal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toMatchObject({ kind: "aborted" });
  });

  it("explains how to add the AI binding when the Worker has none", async () => {
    const error = (await createWorkersAiLlmCall({ binding: undefined, model: MODEL })(userRequest("hi"), {}).catch(
      (err: unknown) => err,
    )) as LlmError;
    expect(error).toMatchObject({ kind: "config" });
    expect(error.message).toContain('[ai] binding = "AI"');
  });
});
