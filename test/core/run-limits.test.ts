/**
 * What a run must never do at its edges: swallow a message at the step limit, or wait forever on a hook.
 * Hooks get the run's signal and hookTimeoutMs; abort ends the run even when a hook ignores its signal.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/core/agent-loop.ts";
import type { UserMessage } from "../../src/core/types.ts";
import { callTools, drainOnce, makeTool, newState, recordingSink, reply, scriptedModel, textOf, userMessage } from "./support.ts";

const never = () => new Promise<never>(() => undefined);

describe("the step limit", () => {
  it("leaves a follow-up that arrives during the last step queued, so the next run answers it", async () => {
    const queue: UserMessage[] = [userMessage("first")];
    const tool = makeTool("work", {
      execute: () => {
        queue.push(userMessage("a follow-up sent while the last step ran"));
        return { content: [{ type: "text", text: "worked" }], details: {}, terminate: false };
      },
    });
    const state = newState([tool]);
    const model = scriptedModel([callTools({ id: "c1", name: "work" })]);
    const final = await runAgentLoop({
      state,
      llmCall: model.llmCall,
      emit: () => undefined,
      maxSteps: 1,
      drainPending: () => queue.splice(0),
    });
    expect(final.stopReason).toBe("max_steps");
    expect(queue.map(textOf)).toEqual(["a follow-up sent while the last step ran"]);
    expect(state.messages.some((m) => m.role === "user" && textOf(m).startsWith("a follow-up"))).toBe(false);
  });
});

describe("hooks that hang", () => {
  it("ends the run as aborted when abort comes while prepareContext hangs", async () => {
    const controller = new AbortController();
    const state = newState();
    const done = runAgentLoop(
      {
        state,
        llmCall: scriptedModel([reply("never")]).llmCall,
        emit: () => undefined,
        drainPending: drainOnce(userMessage("hi")),
        prepareContext: never,
      },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 20);
    expect((await done).stopReason).toBe("aborted");
  });

  it("gives prepareContext the run's signal, aborted on abort", async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const done = runAgentLoop(
      {
        state: newState(),
        llmCall: scriptedModel([]).llmCall,
        emit: () => undefined,
        drainPending: drainOnce(userMessage("hi")),
        prepareContext: (_state, signal) => ((seen = signal), never()),
      },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 20);
    await done;
    expect(seen?.aborted).toBe(true);
  });

  it("ends the run with an error naming the hook when formatMsgForLLM outlasts hookTimeoutMs", async () => {
    const sink = recordingSink();
    const final = await runAgentLoop({
      state: newState(),
      llmCall: scriptedModel([reply("never")]).llmCall,
      emit: sink.emit,
      drainPending: drainOnce(userMessage("hi")),
      formatMsgForLLM: never,
      hookTimeoutMs: 30,
    });
    expect(final).toMatchObject({ stopReason: "error", errorMessage: "formatMsgForLLM hook timed out after 30 ms" });
    expect(sink.ofType("runEnd")).toHaveLength(1);
  });

  it("answers a call whose beforeToolCall hangs with an aborted result when the run is aborted", async () => {
    const controller = new AbortController();
    const sink = recordingSink();
    const state = newState([makeTool("t")]);
    const done = runAgentLoop(
      {
        state,
        llmCall: scriptedModel([callTools({ id: "c1", name: "t" })]).llmCall,
        emit: sink.emit,
        drainPending: drainOnce(userMessage("hi")),
        beforeToolCall: never,
      },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 20);
    expect((await done).stopReason).toBe("aborted");
    expect(sink.ofType("toolExecEnd")).toMatchObject([{ toolCallId: "c1", isError: true }]);
    expect(state.messages.filter((m) => m.role === "toolResult")).toHaveLength(1);
  });

  it("turns an afterToolCall that outlasts hookTimeoutMs into an error result, and the run goes on", async () => {
    const state = newState([makeTool("t")]);
    const final = await runAgentLoop({
      state,
      llmCall: scriptedModel([callTools({ id: "c1", name: "t" }), reply("carried on")]).llmCall,
      emit: () => undefined,
      drainPending: drainOnce(userMessage("hi")),
      afterToolCall: never,
      hookTimeoutMs: 30,
    });
    expect(textOf(final)).toBe("carried on");
    const result = state.messages.find((m) => m.role === "toolResult")!;
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toBe("afterToolCall hook failed: afterToolCall hook timed out after 30 ms");
  });
});

describe("storage first", () => {
  it("keeps a message that could not be stored out of the in-memory history", async () => {
    const state = newState();
    const run = runAgentLoop({
      state,
      llmCall: scriptedModel([reply("never stored")]).llmCall,
      emit: () => undefined,
      drainPending: drainOnce(userMessage("hi")),
      onMessage: (message) => {
        if (message.role === "assistant") throw new Error("disk full");
      },
    });
    await expect(run).rejects.toThrow("disk full");
    expect(state.messages.map((m) => m.role)).toEqual(["user"]);
  });
});
