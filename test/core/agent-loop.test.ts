/**
 * The agent loop (docs/architecture.md "Agent semantics") with a scripted model: history order, the exact event sequence of a run,
 * follow-ups at step boundaries, LLM failure, the step limit, abort, and resuming unanswered calls.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/core/agent-loop.ts";
import type { AgentRun } from "../../src/core/agent-loop.ts";
import type { AgentMessage, AgentState, AssistantMessage, ToolResultMessage, UserMessage } from "../../src/core/types.ts";
import {
  callTools,
  drainOnce,
  makeTool,
  newState,
  recordingSink,
  reply,
  scriptedModel,
  textOf,
  textResult,
  userMessage,
} from "./support.ts";
import type { ScriptedStep } from "./support.ts";

const getTime = makeTool("getTime", { execute: () => textResult("It is 12:00") });

/** Runs the loop on a fresh state with one user message handed over at the first step boundary. */
async function run(steps: ScriptedStep[], extra: Partial<AgentRun> = {}, signal?: AbortSignal) {
  const model = scriptedModel(steps);
  const sink = recordingSink();
  const state: AgentState = extra.state ?? newState([getTime]);
  const final = await runAgentLoop(
    { state, llmCall: model.llmCall, emit: sink.emit, drainPending: drainOnce(userMessage("What time is it?")), ...extra },
    signal,
  );
  return { final, state, model, sink };
}

const roles = (messages: readonly AgentMessage[]) => messages.map((m) => m.role);

describe("history", () => {
  it("keeps user, assistant-with-tool-calls, tool results and the final assistant in order", async () => {
    const { state, final } = await run([callTools({ id: "c1", name: "getTime" }), reply("It is noon.")]);
    expect(roles(state.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect((state.messages[1] as AssistantMessage).content).toEqual([{ type: "toolCall", id: "c1", name: "getTime", arguments: {} }]);
    expect(state.messages[2]).toMatchObject({ role: "toolResult", toolCallId: "c1", isError: false });
    expect(state.messages[3]).toBe(final);
    expect(textOf(final)).toBe("It is noon.");
  });

  it("stores the assistant's tool-call message before the tool runs and before its results", async () => {
    const persisted: string[] = [];
    let lastWhileRunning: AgentMessage | undefined;
    const state = newState([
      makeTool("getTime", {
        execute: () => {
          lastWhileRunning = state.messages.at(-1);
          return textResult("noon");
        },
      }),
    ]);
    await run([callTools({ id: "c1", name: "getTime" }), reply("ok")], {
      state,
      onMessage: (m) => void persisted.push(m.role === "toolResult" ? `result ${m.toolCallId}` : m.role),
    });
    expect(lastWhileRunning).toMatchObject({ role: "assistant", stopReason: "toolUse" });
    expect(persisted).toEqual(["user", "assistant", "result c1", "assistant"]);
  });

  it("sends the model the whole history, tool results included, on the next call", async () => {
    const { model } = await run([callTools({ id: "c1", name: "getTime" }), reply("It is noon.")]);
    expect(model.requests[1]!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(model.requests[1]!.messages[3]).toEqual({ role: "tool", tool_call_id: "c1", content: "It is 12:00" });
    expect(model.requests[0]!.tools.map((t) => t.function.name)).toEqual(["getTime"]);
  });
});

describe("events", () => {
  it("emits the exact event sequence of a one-tool run", async () => {
    const { sink } = await run([callTools({ id: "c1", name: "getTime" }), reply("It is noon.")]);
    const described = sink.events.map((e) => (e.type === "messageEnd" ? `messageEnd(${e.message.role})` : e.type));
    expect(described).toEqual([
      "runStart",
      "messageEnd(user)",
      "messageStart",
      "messageEnd(assistant)",
      "toolExecStart",
      "toolExecEnd",
      "messageEnd(toolResult)",
      "messageStart",
      "messageEnd(assistant)",
      "runEnd",
    ]);
  });

  it("ends the run with the final response and its stop reason", async () => {
    const { sink, final } = await run([reply("Hello.")]);
    const end = sink.ofType("runEnd");
    expect(end).toHaveLength(1);
    expect(end[0]!.response).toBe(final);
    expect(end[0]!.stopReason).toBe("stop");
  });

  it("forwards the model's text deltas as messageDelta events", async () => {
    const { sink } = await run([], {
      llmCall: async (_request, { onTextDelta }) => {
        onTextDelta?.("Hel");
        onTextDelta?.("lo.");
        return reply("Hello.");
      },
    });
    expect(sink.ofType("messageDelta").map((e) => e.text)).toEqual(["Hel", "lo."]);
  });
});

describe("step boundaries", () => {
  it("drains pending input before each LLM call, so a follow-up sent during a run is seen at its next call", async () => {
    const queue: UserMessage[] = [userMessage("What time is it?")];
    let drains = 0;
    let llmCalls = 0;
    const state = newState([
      makeTool("getTime", {
        execute: () => {
          queue.push(userMessage("Also, in Tokyo please."));
          return textResult("It is 12:00");
        },
      }),
    ]);
    const model = scriptedModel([callTools({ id: "c1", name: "getTime" }), reply("Noon here, 20:00 in Tokyo.")]);
    await runAgentLoop({
      state,
      llmCall: (request, options) => {
        llmCalls++;
        // Every LLM call is preceded by its own drain.
        expect(drains).toBe(llmCalls);
        return model.llmCall(request, options);
      },
      emit: () => undefined,
      drainPending: () => {
        drains++;
        return queue.splice(0);
      },
    });
    const second = model.requests[1]!.messages;
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(second.at(-1)).toEqual({ role: "user", content: "Also, in Tokyo please." });
    expect(model.requests[0]!.messages.some((m) => m.role === "user" && m.content === "Also, in Tokyo please.")).toBe(false);
  });
});

describe("stopping", () => {
  it("ends with stopReason error, the message, and an error event when the LLM call throws", async () => {
    const { final, sink, state } = await run([new Error("upstream 503")]);
    expect(final.stopReason).toBe("error");
    expect(final.errorMessage).toBe("upstream 503");
    expect(sink.ofType("error")).toEqual([{ type: "error", message: "upstream 503" }]);
    expect(state.messages.at(-1)).toBe(final);
    expect(state.errorMessage).toBe("upstream 503");
  });

  it("stops with stopReason max_steps after maxSteps LLM calls", async () => {
    const steps = Array.from({ length: 5 }, (_, i) => callTools({ id: `c${i}`, name: "getTime" }));
    const { final, model } = await run(steps, { maxSteps: 2 });
    expect(model.requests).toHaveLength(2);
    expect(final.stopReason).toBe("max_steps");
    expect(final.errorMessage).toMatch(/maxSteps/);
  });

  it("stops with stopReason aborted, without calling the LLM, when aborted before the call", async () => {
    const controller = new AbortController();
    controller.abort();
    const { final, model, state } = await run([reply("never")], {}, controller.signal);
    expect(final.stopReason).toBe("aborted");
    expect(model.requests).toHaveLength(0);
    expect(state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  it("stops with stopReason aborted when aborted while the LLM call is in flight", async () => {
    const controller = new AbortController();
    const { final } = await run(
      [],
      {
        llmCall: async (_request, { signal }) => {
          controller.abort();
          throw signal?.reason ?? new Error("aborted");
        },
      },
      controller.signal,
    );
    expect(final.stopReason).toBe("aborted");
  });
});

describe("resuming", () => {
  it("answers the unanswered tool calls of a resumed history before the next LLM call", async () => {
    const pending: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "toolCall", id: "done", name: "getTime", arguments: {} },
        { type: "toolCall", id: "open", name: "getTime", arguments: {} },
      ],
      stopReason: "toolUse",
      timestamp: 1,
    };
    const answered: ToolResultMessage = {
      role: "toolResult",
      toolCallId: "done",
      toolName: "getTime",
      content: [{ type: "text", text: "earlier" }],
      details: {},
      isError: false,
      timestamp: 1,
    };
    const state = newState([getTime], [userMessage("What time is it?"), pending, answered]);
    const { model, sink } = await run([reply("It is noon.")], { state, resumed: true, drainPending: () => [] });
    expect(sink.types()[0]).not.toBe("runStart");
    const wire = model.requests[0]!.messages;
    expect(wire.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(wire.slice(3)).toEqual([
      { role: "tool", tool_call_id: "done", content: "earlier" },
      { role: "tool", tool_call_id: "open", content: "It is 12:00" },
    ]);
  });
});
