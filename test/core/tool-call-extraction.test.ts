/**
 * Tool-call extraction: the real OpenAI shape, both spec shapes, generated ids used
 * consistently, and malformed entries answered with an error result without stopping the others.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/core/agent-loop.ts";
import type { LlmResponse } from "../../src/core/agent-loop.ts";
import { extractToolCalls } from "../../src/core/tool-call-extraction.ts";
import type { AssistantMessage, ToolResultMessage } from "../../src/core/types.ts";
import { drainOnce, makeTool, newState, reply, scriptedModel, textOf, textResult, userMessage } from "./support.ts";

const response = (content: unknown[], extra: Partial<LlmResponse> = {}): LlmResponse => ({
  role: "assistant",
  content,
  stopReason: "stop",
  timestamp: 1,
  ...extra,
});

const openAiCall = { id: "call_abc", type: "function", function: { name: "getWeather", arguments: '{"city":"Oslo"}' } };

describe("extractToolCalls", () => {
  it("reads the real OpenAI shape inside a tool_calls block", () => {
    const { message, toolCalls } = extractToolCalls(response([{ type: "tool_calls", tool_calls: [openAiCall] }]));
    expect(toolCalls).toEqual([{ type: "function", id: "call_abc", name: "getWeather", arguments: '{"city":"Oslo"}' }]);
    expect(message.content).toEqual([{ type: "toolCall", id: "call_abc", name: "getWeather", arguments: '{"city":"Oslo"}' }]);
    expect(message.stopReason).toBe("toolUse");
  });

  it("reads the real OpenAI shape from a top-level tool_calls array, keeping the text", () => {
    const { message, toolCalls } = extractToolCalls(response([{ type: "text", text: "Checking." }], { tool_calls: [openAiCall] }));
    expect(toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([["call_abc", "getWeather", '{"city":"Oslo"}']]);
    expect(message.content).toEqual([
      { type: "text", text: "Checking." },
      { type: "toolCall", id: "call_abc", name: "getWeather", arguments: '{"city":"Oslo"}' },
    ]);
    expect(message).not.toHaveProperty("tool_calls");
  });

  it("reads spec format 1: a tool_calls block of flat calls with object arguments", () => {
    const { toolCalls } = extractToolCalls(
      response([
        {
          type: "tool_calls",
          tool_calls: [
            { id: "t1", name: "getTime", arguments: { zone: "UTC" } },
            { id: "t2", name: "getWeather", arguments: { city: "Rome" } },
          ],
        },
      ]),
    );
    expect(toolCalls).toEqual([
      { type: "function", id: "t1", name: "getTime", arguments: { zone: "UTC" } },
      { type: "function", id: "t2", name: "getWeather", arguments: { city: "Rome" } },
    ]);
  });

  it("reads spec format 2: single tool_call blocks", () => {
    const { toolCalls } = extractToolCalls(
      response([
        { type: "text", text: "Let me look." },
        { type: "tool_call", id: "t9", name: "getTime", arguments: { zone: "CET" } },
      ]),
    );
    expect(toolCalls).toEqual([{ type: "function", id: "t9", name: "getTime", arguments: { zone: "CET" } }]);
  });

  it("gives a call without an id a generated one, the same in the message and the call", () => {
    const { message, toolCalls } = extractToolCalls(response([{ type: "tool_call", name: "getTime", arguments: {} }]));
    const id = toolCalls[0]!.id;
    expect(id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(message.content[0]).toMatchObject({ type: "toolCall", id });
  });

  it("marks an entry without a name or that is not an object as invalid, keeping the readable ones", () => {
    const { toolCalls } = extractToolCalls(
      response([
        { type: "tool_calls", tool_calls: [{ id: "bad", arguments: {} }, "garbage", { id: "good", name: "getTime", arguments: {} }] },
      ]),
    );
    expect(toolCalls.map((c) => [c.id === "bad" || c.id === "good" ? c.id : "generated", Boolean(c.invalid)])).toEqual([
      ["bad", true],
      ["generated", true],
      ["good", false],
    ]);
    expect(toolCalls[0]!.invalid).toBe("Malformed tool call: the tool name is missing");
    expect(toolCalls[1]!.invalid).toMatch(/^Malformed tool call: expected an object/);
  });

  it("leaves a plain text answer as text with its stop reason", () => {
    const { message, toolCalls } = extractToolCalls(response([{ type: "text", text: "Hello" }]));
    expect(toolCalls).toEqual([]);
    expect(message.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(message.stopReason).toBe("stop");
  });
});

describe("extraction inside the loop", () => {
  const getTime = makeTool("getTime", { execute: () => textResult("12:00") });

  const resultsOf = (messages: readonly unknown[]) =>
    (messages as { role: string }[]).filter((m): m is ToolResultMessage => m.role === "toolResult");

  it("uses a generated id consistently in the stored assistant message and the tool result", async () => {
    const model = scriptedModel([response([{ type: "tool_call", name: "getTime", arguments: {} }]), reply("It is noon.")]);
    const state = newState([getTime]);
    await runAgentLoop({ state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("time?")) });
    const assistant = state.messages[1] as AssistantMessage;
    const block = assistant.content[0];
    expect(block?.type).toBe("toolCall");
    const id = block?.type === "toolCall" ? block.id : "";
    expect(id).toMatch(/^call_/);
    expect(resultsOf(state.messages).map((r) => r.toolCallId)).toEqual([id]);
    // The wire sees the same id on both sides.
    const wire = model.requests[1]!.messages;
    expect(wire.find((m) => m.role === "tool")).toMatchObject({ tool_call_id: id });
  });

  it("answers a malformed entry with an error result without crashing, and still runs the other calls", async () => {
    const model = scriptedModel([
      response([], {
        tool_calls: [
          { id: "nameless", type: "function", function: { arguments: "{}" } },
          7,
          { ...openAiCall, id: "ok", function: { name: "getTime", arguments: "{}" } },
        ],
      }),
      reply("done"),
    ]);
    const state = newState([getTime]);
    const final = await runAgentLoop({ state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("go")) });
    expect(final.stopReason).toBe("stop");
    const results = resultsOf(state.messages);
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ toolCallId: "nameless", isError: true });
    expect(textOf(results[0]!)).toBe("Malformed tool call: the tool name is missing");
    expect(results[1]!.isError).toBe(true);
    expect(results[2]).toMatchObject({ toolCallId: "ok", isError: false });
    expect(textOf(results[2]!)).toBe("12:00");
  });

  it("does not run a tool whose call carried non-object arguments, answering with the extractor's error", async () => {
    let runs = 0;
    const counted = makeTool("getTime", {
      execute: () => {
        runs++;
        return textResult("12:00");
      },
    });
    const model = scriptedModel([response([{ type: "tool_call", id: "n", name: "getTime", arguments: 5 }]), reply("done")]);
    const state = newState([counted]);
    await runAgentLoop({ state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("go")) });
    const [only] = resultsOf(state.messages);
    expect(runs).toBe(0);
    expect(only).toMatchObject({ toolCallId: "n", isError: true });
    expect(textOf(only!)).toBe('Arguments for tool "getTime" must be a JSON object');
  });
});
