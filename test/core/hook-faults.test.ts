import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/core/index.ts";
import { drainOnce, makeTool, newState, recordingSink, runOne, scriptedModel, userMessage } from "./support.ts";

describe("hooks that return junk", () => {
  it("blocks a call whose beforeToolCall returns a non-object (fails closed)", async () => {
    let ran = false;
    const tool = makeTool("t", { execute: () => ((ran = true), { content: [], details: {}, terminate: false }) });
    const { message, text } = await runOne(tool, {}, { beforeToolCall: (() => "yes please") as never });
    expect(message.isError).toBe(true);
    expect(text).toContain("beforeToolCall hook returned an invalid value");
    expect(ran).toBe(false);
  });

  it("blocks a call whose beforeToolCall returns a non-boolean block", async () => {
    const { message } = await runOne(makeTool("t"), {}, { beforeToolCall: (() => ({ block: "no" })) as never });
    expect(message.isError).toBe(true);
  });

  it("turns an afterToolCall that returns a number into an error result", async () => {
    const { message, text } = await runOne(makeTool("t"), {}, { afterToolCall: (() => 42) as never });
    expect(message.isError).toBe(true);
    expect(text).toContain("afterToolCall hook failed");
  });

  it("turns an afterToolCall whose content is not an array into an error result", async () => {
    const { message } = await runOne(makeTool("t"), {}, { afterToolCall: (() => ({ content: "text" })) as never });
    expect(message.isError).toBe(true);
  });

  it("ends the run with stopReason error when llmCall returns junk", async () => {
    const sink = recordingSink();
    const state = newState();
    const response = await runAgentLoop({
      state,
      emit: sink.emit,
      drainPending: drainOnce(userMessage("hi")),
      llmCall: async () => null as never,
    });
    expect(response.stopReason).toBe("error");
    expect(response.errorMessage).toContain("llmCall returned an invalid response");
  });

  it("ends the run with stopReason error when prepareContext throws", async () => {
    const model = scriptedModel([]);
    const response = await runAgentLoop({
      state: newState(),
      emit: recordingSink().emit,
      drainPending: drainOnce(userMessage("hi")),
      llmCall: model.llmCall,
      prepareContext: () => {
        throw new Error("context store offline");
      },
    });
    expect(response).toMatchObject({ stopReason: "error", errorMessage: "context store offline" });
  });
});
