/**
 * Both adapters tell the caller (the agent loop, which emits `llmRetry`) about every retry through the
 * per-call onRetry option, with the capped wait they are about to make.
 */
import { describe, expect, it } from "vitest";
import type { LlmRetryInfo } from "../../src/core/agent-loop.ts";
import { createOpenAiLlmCall } from "../../src/llm/openai-chat-model.ts";
import { createWorkersAiLlmCall, type WorkersAiBinding } from "../../src/llm/workers-ai-model.ts";
import { useMockOpenAi, userRequest } from "./fixtures.ts";

const mock = useMockOpenAi();

describe("retry reporting", () => {
  it("the OpenAI adapter reports each retry with its number and capped wait", async () => {
    mock.server.enqueue({ status: 503, errorMessage: "busy" }, { status: 503, errorMessage: "busy" }, { text: "done" });
    const retries: LlmRetryInfo[] = [];
    const call = createOpenAiLlmCall({ apiKey: "k", baseURL: mock.server.url, model: "m", initialRetryDelayMs: 1_000, maxRetryDelayMs: 5 });
    await call(userRequest("hi"), { onRetry: (info) => void retries.push(info) });
    expect(retries.map((r) => [r.retryNumber, r.delayMs <= 5])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(String(retries[0]!.error)).toContain("503");
  });

  it("the Workers AI adapter reports each retry with its number and capped wait", async () => {
    let calls = 0;
    const binding: WorkersAiBinding = {
      run: async () => {
        if (++calls < 3) throw new Error("3040: Capacity temporarily exceeded, please try again.");
        return { response: "done" };
      },
    };
    const retries: LlmRetryInfo[] = [];
    const call = createWorkersAiLlmCall({ binding, model: "@cf/m", stream: false, initialRetryDelayMs: 1_000, maxRetryDelayMs: 5 });
    await call(userRequest("hi"), { onRetry: (info) => void retries.push(info) });
    expect(retries.map((r) => [r.retryNumber, r.delayMs <= 5])).toEqual([
      [1, true],
      [2, true],
    ]);
  });
});
