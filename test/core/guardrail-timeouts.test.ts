/**
 * Guardrails fail closed on time: a check still running at the hook timeout trips, at either stage,
 * and an output check that never answers releases no delta.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop, type LlmCall } from "../../src/core/agent-loop.ts";
import type { Guardrail } from "../../src/core/index.ts";
import { drainOnce, newState, recordingSink, reply, scriptedModel, userMessage } from "./support.ts";

const hanging = (stage: "input" | "output"): Guardrail => ({ name: `slow-${stage}`, stage, check: () => new Promise(() => {}) });

describe("a guardrail that does not answer in time", () => {
  it("trips on input: the model is never asked", async () => {
    const model = scriptedModel([reply("never")]);
    const sink = recordingSink();
    const response = await runAgentLoop({
      state: newState(),
      llmCall: model.llmCall,
      emit: sink.emit,
      drainPending: drainOnce(userMessage("hi")),
      hookTimeoutMs: 30,
      guardrails: { input: [hanging("input")], output: [] },
    });
    expect(response.stopReason).toBe("guardrail");
    expect(model.requests).toHaveLength(0);
    expect(sink.ofType("guardrailTripped")).toEqual([
      { type: "guardrailTripped", guardrail: "slow-input", stage: "input", reason: expect.stringContaining("timed out") },
    ]);
  });

  it("trips on output: no delta leaves, the answer is replaced by a refusal", async () => {
    const llmCall: LlmCall = async (_request, { onTextDelta }) => {
      onTextDelta?.("Hello ");
      onTextDelta?.("world");
      return reply("Hello world");
    };
    const sink = recordingSink();
    const response = await runAgentLoop({
      state: newState(),
      llmCall,
      emit: sink.emit,
      drainPending: drainOnce(userMessage("hi")),
      hookTimeoutMs: 30,
      guardrails: { input: [], output: [hanging("output")] },
    });
    expect(response.stopReason).toBe("guardrail");
    expect(sink.ofType("messageDelta")).toEqual([]);
    expect(JSON.stringify(sink.events)).not.toContain("Hello");
  });
});
