/**
 * The SSE formatter on exact strings: field order, multi-line data split into data lines, comments.
 */
import { describe, expect, it } from "vitest";
import { formatSse, formatSseComment } from "../../src/wire/sse.ts";
import { SseParser } from "../../src/wire/sse-parser.ts";

describe("formatSse", () => {
  it("writes id, event and data lines followed by a blank line", () => {
    expect(formatSse({ id: 7, event: "runStart", data: '{"seq":7}' })).toBe('id: 7\nevent: runStart\ndata: {"seq":7}\n\n');
  });

  it("splits multi-line data into one data line per line, whatever the line ending", () => {
    expect(formatSse({ data: "a\nb\r\nc\rd" })).toBe("data: a\ndata: b\ndata: c\ndata: d\n\n");
  });

  it("writes retry before data and leaves out absent fields", () => {
    expect(formatSse({ retry: 1000, data: "" })).toBe("retry: 1000\ndata: \n\n");
  });

  it("writes a comment the parser reads back as a comment", () => {
    expect(formatSseComment("ping")).toBe(": ping\n\n");
    expect(new SseParser().feed(formatSseComment("ping"))).toEqual([{ kind: "comment", text: "ping" }]);
  });

  it("round-trips through the parser unchanged", () => {
    const data = '{"text":"line one\\nline two"}\nsecond';
    const [item] = new SseParser().feed(formatSse({ id: 3, event: "messageDelta", data }));
    expect(item).toEqual({ kind: "message", event: "messageDelta", data, id: "3", lastEventId: "3" });
  });
});
