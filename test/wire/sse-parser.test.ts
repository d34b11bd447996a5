import { describe, expect, it } from "vitest";
import { SseParser, type SseItem } from "../../src/wire/sse-parser.ts";

const encoder = new TextEncoder();

function parseWhole(text: string): SseItem[] {
  return new SseParser().feed(encoder.encode(text));
}

/** Feeds the bytes in two pieces split at `at`. */
function parseSplit(bytes: Uint8Array, at: number): SseItem[] {
  const parser = new SseParser();
  return [...parser.feed(bytes.subarray(0, at)), ...parser.feed(bytes.subarray(at))];
}

function parseByteByByte(bytes: Uint8Array): SseItem[] {
  const parser = new SseParser();
  const items: SseItem[] = [];
  for (let i = 0; i < bytes.length; i++) items.push(...parser.feed(bytes.subarray(i, i + 1)));
  return items;
}

// What the Worker sends: retry first, two events, a ping, a multi-line event, a notice without id.
const SERVER_STREAM =
  "retry: 1000\n\n" +
  'id: 1\nevent: runStart\ndata: {"seq":1,"type":"runStart"}\n\n' +
  'id: 2\nevent: messageDelta\ndata: {"seq":2,"type":"messageDelta","text":"héllo 🌍"}\n\n' +
  ": ping\n\n" +
  "id: 3\nevent: note\ndata: first line\ndata: second line\n\n" +
  'event: eventsDropped\ndata: {"type":"eventsDropped","oldestSeq":7}\n\n';

const SERVER_ITEMS: SseItem[] = [
  { kind: "retry", ms: 1000 },
  { kind: "message", event: "runStart", data: '{"seq":1,"type":"runStart"}', id: "1", lastEventId: "1" },
  { kind: "message", event: "messageDelta", data: '{"seq":2,"type":"messageDelta","text":"héllo 🌍"}', id: "2", lastEventId: "2" },
  { kind: "comment", text: "ping" },
  { kind: "message", event: "note", data: "first line\nsecond line", id: "3", lastEventId: "3" },
  { kind: "message", event: "eventsDropped", data: '{"type":"eventsDropped","oldestSeq":7}', lastEventId: "3" },
];

describe("SseParser", () => {
  it("parses the Worker's stream into retry, events, comments and an id-less notice", () => {
    expect(parseWhole(SERVER_STREAM)).toEqual(SERVER_ITEMS);
  });

  it("gives the same items however the bytes are split in two, even inside a UTF-8 sequence", () => {
    const bytes = encoder.encode(SERVER_STREAM);
    for (let at = 0; at <= bytes.length; at++) {
      expect(parseSplit(bytes, at), `split at byte ${at}`).toEqual(SERVER_ITEMS);
    }
  });

  it("gives the same items when fed one byte at a time", () => {
    expect(parseByteByByte(encoder.encode(SERVER_STREAM))).toEqual(SERVER_ITEMS);
  });

  it("treats CRLF line ends like LF, wherever the CR and LF fall in the chunks", () => {
    const bytes = encoder.encode(SERVER_STREAM.replaceAll("\n", "\r\n"));
    for (let at = 0; at <= bytes.length; at++) {
      expect(parseSplit(bytes, at), `split at byte ${at}`).toEqual(SERVER_ITEMS);
    }
  });

  it("treats a lone CR as a line end", () => {
    expect(parseWhole(SERVER_STREAM.replaceAll("\n", "\r"))).toEqual(SERVER_ITEMS);
  });

  it("accepts mixed line ends within one event", () => {
    expect(parseWhole("id: 9\r\nevent: x\rdata: a\ndata: b\r\n\r")).toEqual([
      { kind: "message", event: "x", data: "a\nb", id: "9", lastEventId: "9" },
    ]);
  });

  it("joins multi-line data with LF and keeps empty data lines", () => {
    expect(parseWhole("data: one\ndata:\ndata: three\n\n")).toEqual([
      { kind: "message", event: "message", data: "one\n\nthree", lastEventId: "" },
    ]);
  });

  it("strips exactly one space after the colon", () => {
    expect(parseWhole("data:  two spaces\ndata:none\n\n")).toEqual([
      { kind: "message", event: "message", data: " two spaces\nnone", lastEventId: "" },
    ]);
  });

  it("dispatches an event whose only data line is empty", () => {
    expect(parseWhole("data\n\n")).toEqual([{ kind: "message", event: "message", data: "", lastEventId: "" }]);
  });

  it("reports comments, with or without a space, and never turns them into events", () => {
    expect(parseWhole(": ping\n:raw\n\n")).toEqual([
      { kind: "comment", text: "ping" },
      { kind: "comment", text: "raw" },
    ]);
  });

  it("dispatches nothing for a block without data, but still reports its retry", () => {
    expect(parseWhole("retry: 250\n\nid: 4\n\n")).toEqual([{ kind: "retry", ms: 250 }]);
  });

  it("ignores a retry value that is not all digits", () => {
    expect(parseWhole("retry: 1e3\nretry: -5\nretry: 10s\ndata: x\n\n")).toEqual([
      { kind: "message", event: "message", data: "x", lastEventId: "" },
    ]);
  });

  it("keeps the last event id across events that carry none, but reports only an event's own id", () => {
    expect(parseWhole("id: 5\ndata: a\n\ndata: b\n\n")).toEqual([
      { kind: "message", event: "message", data: "a", id: "5", lastEventId: "5" },
      { kind: "message", event: "message", data: "b", lastEventId: "5" },
    ]);
  });

  it("ignores an id containing NUL", () => {
    expect(parseWhole("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n")).toEqual([
      { kind: "message", event: "message", data: "a", id: "1", lastEventId: "1" },
      { kind: "message", event: "message", data: "b", lastEventId: "1" },
    ]);
  });

  it("ignores unknown fields", () => {
    expect(parseWhole("foo: bar\ndata: x\nbaz\n\n")).toEqual([{ kind: "message", event: "message", data: "x", lastEventId: "" }]);
  });

  it("holds back an event until its blank line arrives, so a stream cut mid-event yields nothing of it", () => {
    const parser = new SseParser();
    expect(parser.feed('id: 1\nevent: a\ndata: {"seq":1}\n\nid: 2\nevent: b\ndata: {"se')).toEqual([
      { kind: "message", event: "a", data: '{"seq":1}', id: "1", lastEventId: "1" },
    ]);
    expect(parser.feed('q":2}\n')).toEqual([]);
  });

  it("resets the event type after each dispatch", () => {
    expect(parseWhole("event: custom\ndata: a\n\ndata: b\n\n").map((item) => item.kind === "message" && item.event)).toEqual([
      "custom",
      "message",
    ]);
  });

  it("strips a leading byte order mark from bytes and from text, only at the start", () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const rest = encoder.encode("data: x\n\n");
    const bytes = new Uint8Array(bom.length + rest.length);
    bytes.set(bom);
    bytes.set(rest, bom.length);
    const expected: SseItem[] = [{ kind: "message", event: "message", data: "x", lastEventId: "" }];
    expect(new SseParser().feed(bytes)).toEqual(expected);
    expect(new SseParser().feed("\ufeffdata: x\n\n")).toEqual(expected);
    expect(new SseParser().feed("data: \ufeffx\n\n")).toEqual([{ kind: "message", event: "message", data: "\ufeffx", lastEventId: "" }]);
  });
});
