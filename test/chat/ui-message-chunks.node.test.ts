import { describe, expect, it } from "vitest";
import { readChatRequest } from "../../src/chat/chat-request.ts";
import { UiMessageChunker } from "../../src/chat/ui-message-chunks.ts";
import type { AgentEvent, AssistantMessage } from "../../src/core/index.ts";

const response = (stopReason: AssistantMessage["stopReason"], errorMessage?: string): AssistantMessage => ({
  role: "assistant",
  content: [],
  stopReason,
  errorMessage,
  timestamp: 0,
});
const run = (chunker: UiMessageChunker, events: AgentEvent[]) => events.flatMap((e) => chunker.translate(e)).map((c) => c.type);

describe("session events as UI message chunks", () => {
  it("drops a step's parts with reset-step when the partial message is abandoned", () => {
    const chunker = new UiMessageChunker("m");
    const types = run(chunker, [
      { type: "messageStart", role: "assistant" },
      { type: "messageDelta", text: "half" },
      { type: "messageAbandoned", reason: "retry" },
      { type: "messageStart", role: "assistant" },
      { type: "messageDelta", text: "whole" },
      { type: "runEnd", response: response("stop"), stopReason: "stop" },
    ]);
    expect(types).toEqual([
      "start-step",
      "text-start",
      "text-delta",
      "reset-step",
      "finish-step",
      "start-step",
      "text-start",
      "text-delta",
      "text-end",
      "finish-step",
      "finish",
    ]);
  });

  it("shows a session error that does not end the run as a transient notice, and a failed run as an error", () => {
    const chunker = new UiMessageChunker("m");
    const notice = chunker.translate({ type: "error", message: 'MCP server "x" is unreachable' });
    expect(notice).toEqual([{ type: "data-notice", data: { level: "error", message: 'MCP server "x" is unreachable' }, transient: true }]);
    const end = chunker.translate({ type: "runEnd", response: response("error", "model down"), stopReason: "error" });
    expect(end).toEqual([
      { type: "error", errorText: "model down" },
      { type: "finish", finishReason: "error" },
    ]);
  });

  it("announces a tool call once, streams partial results as preliminary output, then the final output", () => {
    const chunker = new UiMessageChunker("m");
    const chunks = [
      { type: "toolExecStart", toolCallId: "c", toolName: "t", arguments: { a: 1 } },
      { type: "toolExecUpdate", toolCallId: "c", toolName: "t", arguments: { a: 1 }, partialResult: { step: 1 } },
      {
        type: "toolExecEnd",
        toolCallId: "c",
        toolName: "t",
        result: { content: [{ type: "text", text: "ok" }], details: {}, terminate: false },
        isError: false,
      },
    ].flatMap((e) => chunker.translate(e as AgentEvent));
    expect(chunks).toEqual([
      { type: "start-step" },
      { type: "tool-input-available", toolCallId: "c", toolName: "t", input: { a: 1 }, dynamic: true },
      { type: "tool-output-available", toolCallId: "c", output: { step: 1 }, dynamic: true, preliminary: true },
      { type: "tool-output-available", toolCallId: "c", output: { content: [{ type: "text", text: "ok" }], details: {} }, dynamic: true },
    ]);
  });
});

describe("what a useChat request asks for", () => {
  it("takes the last user message's text and base64 images, and nothing from earlier messages", () => {
    const request = readChatRequest([
      { role: "user", parts: [{ type: "text", text: "old" }] },
      {
        role: "user",
        parts: [
          { type: "text", text: "look" },
          { type: "file", url: "data:image/png;base64,AAAA", mediaType: "image/png" },
        ],
      },
    ]);
    expect(request).toEqual({
      kind: "message",
      content: [
        { type: "text", text: "look" },
        { type: "image", mimeType: "image/png", data: "AAAA" },
      ],
    });
  });

  it("refuses files that are not inline images, and a message with nothing to say", () => {
    expect(readChatRequest([{ role: "user", parts: [{ type: "file", url: "https://x/y.pdf", mediaType: "application/pdf" }] }]).kind).toBe(
      "invalid",
    );
    expect(readChatRequest([{ role: "user", parts: [{ type: "step-start" }] }])).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining("no text"),
    });
  });

  it("reads approval answers from the last assistant message's tool parts", () => {
    const request = readChatRequest([
      { role: "user", parts: [{ type: "text", text: "go" }] },
      {
        role: "assistant",
        parts: [
          { type: "dynamic-tool", toolCallId: "a", state: "approval-responded", approval: { id: "a", approved: false, reason: "no" } },
          { type: "dynamic-tool", toolCallId: "b", state: "output-available" },
        ],
      },
    ]);
    expect(request).toEqual({
      kind: "approvals",
      answers: [{ toolCallId: "a", approve: false, reason: "no" }],
      knownToolCallIds: ["a", "b"],
    });
  });
});
