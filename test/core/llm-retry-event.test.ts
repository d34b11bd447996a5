/**
 * LLM retries are visible: an adapter reports each retry through LlmCallOptions.onRetry and the loop turns
 * it into an `llmRetry` event between messageStart and the answer.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop, type LlmCall } from "../../src/core/agent-loop.ts";
import { LlmError } from "../../src/llm/llm-error.ts";
import { drainOnce, newState, recordingSink, reply, userMessage } from "./support.ts";

describe("llmRetry events", () => {
  it("emits one llmRetry per retry the adapter reports, with its number, wait and reason", async () => {
    const llmCall: LlmCall = async (_request, { onRetry }) => {
      onRetry?.({
        retryNumber: 1,
        delayMs: 500,
        error: new LlmError("LLM request failed with HTTP 503: busy", { kind: "http", retryable: true, status: 503 }),
      });
      onRetry?.({ retryNumber: 2, delayMs: 1000, error: new Error("socket hang up") });
      return reply("done");
    };
    const sink = recordingSink();
    await runAgentLoop({ state: newState(), llmCall, emit: sink.emit, drainPending: drainOnce(userMessage("hi")) });
    const types = sink.events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(["runStart", "messageEnd", "messageStart", "llmRetry"]);
    expect(sink.events.filter((e) => e.type === "llmRetry")).toEqual([
      { type: "llmRetry", retry: 1, delayMs: 500, message: "LLM request failed with HTTP 503: busy" },
      { type: "llmRetry", retry: 2, delayMs: 1000, message: "socket hang up" },
    ]);
  });
});
