import { describe, expect, it } from "vitest";
import { limitToolResult } from "../../src/core/index.ts";
import { makeTool, runBatch, textOf, textResult, toolCall } from "./support.ts";

describe("tool result size limit", () => {
  it("truncates a huge result before it is stored, with a note saying how much was cut", async () => {
    const huge = makeTool("huge", { execute: () => textResult("x".repeat(10_000)) });
    const { batch, sink } = await runBatch([huge], [toolCall("h1", "huge")], { maxToolResultChars: 1_000 });
    const text = textOf(batch.messages[0]!);
    expect(text.length).toBeLessThan(1_100);
    expect(text).toContain("[output truncated: 10000 characters, limit 1000]");
    const end = sink.events.find((e) => e.type === "toolExecEnd")!;
    expect(JSON.stringify(end).length).toBeLessThan(2_000);
  });

  it("leaves results under the limit untouched", () => {
    const result = textResult("short");
    expect(limitToolResult(result, 100)).toBe(result);
  });

  it("replaces an image that does not fit with a note naming it", () => {
    const limited = limitToolResult(
      {
        content: [
          { type: "text", text: "ok" },
          { type: "image", data: "A".repeat(500), mimeType: "image/png" },
        ],
        details: {},
        terminate: false,
      },
      100,
    );
    expect(limited.content.map((b) => (b.type === "text" ? b.text : b.type))).toEqual([
      "ok",
      "[image omitted: image/png, 500 characters of data]",
      "[output truncated: 502 characters, limit 100]",
    ]);
  });
});
