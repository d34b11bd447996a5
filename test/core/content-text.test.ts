import { describe, expect, it } from "vitest";
import { formatMessage, limitToolResult, normalizeToolResult, type ToolResultMessage } from "../../src/core/index.ts";

const resultMessage = (content: ToolResultMessage["content"]): ToolResultMessage => ({
  role: "toolResult",
  toolCallId: "c1",
  toolName: "t",
  content,
  details: {},
  isError: false,
  timestamp: 0,
});

describe("MCP's content kinds in tool results", () => {
  it("are described in text to a Chat Completions model, an embedded text resource with its text", () => {
    const wire = formatMessage(
      resultMessage([
        { type: "text", text: "before" },
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        { type: "resource_link", uri: "https://x.test/doc", name: "doc", mimeType: "text/html" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "file text" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA" } },
      ]),
    );
    expect(wire).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: [
        "before",
        "[audio: audio/wav, 8 characters of base64 data]",
        '[resource link: https://x.test/doc "doc" (text/html)]',
        "[resource file:///a.txt (text/plain)]\nfile text",
        "[resource file:///b.bin: binary, 4 characters of base64 data]",
      ].join("\n"),
    });
  });

  it("survive a tool's result normalization field by field, and a malformed one is refused", () => {
    const ok = normalizeToolResult({
      content: [
        { type: "audio", data: "AA", mimeType: "audio/wav", extra: 1 },
        { type: "resource_link", uri: "u", name: "n" },
        { type: "resource", resource: { uri: "u", text: "t", secret: "x" } },
      ],
    });
    expect(ok).toEqual({
      ok: true,
      result: {
        content: [
          { type: "audio", data: "AA", mimeType: "audio/wav" },
          { type: "resource_link", uri: "u", name: "n" },
          { type: "resource", resource: { uri: "u", text: "t" } },
        ],
        details: {},
        terminate: false,
      },
    });
    expect(normalizeToolResult({ content: [{ type: "resource", resource: { uri: "u" } }] })).toMatchObject({
      ok: false,
      error: expect.stringContaining("content[0]"),
    });
  });

  it("count against the result limit, and audio that does not fit is named in a note", () => {
    const limited = limitToolResult(
      { content: [{ type: "audio", data: "A".repeat(100), mimeType: "audio/wav" }], details: {}, terminate: false },
      50,
    );
    expect(limited.content[0]).toEqual({ type: "text", text: "[audio omitted: audio/wav, 100 characters of data]" });
  });
});
