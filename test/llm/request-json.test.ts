/**
 * The request body's bytes built by a run's RequestEncoder (src/llm/request-json.ts): they must decode to exactly
 * what JSON.stringify gives, a wire object already sent is not stringified again, and bytes handed to a
 * request in flight never change under it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { cachedJson, listJsonLength, RequestEncoder, type ChatRequestBody } from "../../src/llm/request-json.ts";

const messages = [
  { role: "system", content: "Be brief." },
  { role: "user", content: 'Weather in "Oslo"?\n' },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "getWeather", arguments: '{"city":"Oslo"}' } }],
  },
  { role: "tool", tool_call_id: "c1", content: "Sunny, 21°C ☀️ — 東京も晴れ" },
];
const tools = [
  { type: "function", function: { name: "getWeather", description: "Weather", parameters: { type: "object", properties: {} } } },
];

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
/** One run's encoder, as an LLM adapter instance holds it; each test gets a fresh one. */
let encoder = new RequestEncoder();
const encodeChatRequest = (body: ChatRequestBody) => encoder.encode(body);

/** Encodes and settles the request at once, as a finished LLM call does. */
function bodyText(body: ChatRequestBody): string {
  const request = encodeChatRequest(body);
  const text = decode(request.bytes);
  request.done();
  return text;
}

afterEach(() => {
  vi.restoreAllMocks();
  encoder = new RequestEncoder();
});

describe("encodeChatRequest", () => {
  it("encodes the UTF-8 of exactly JSON.stringify of the whole body", () => {
    const body = { messages, tools, model: "m", stream: true, stream_options: { include_usage: true } };
    expect(bodyText(body)).toBe(JSON.stringify(body));
  });

  it("leaves out tools when the body has none", () => {
    expect(bodyText({ model: "m", messages })).toBe(JSON.stringify({ messages, model: "m" }));
  });

  it("writes a body of messages alone as valid JSON", () => {
    expect(JSON.parse(bodyText({ messages: [] }))).toEqual({ messages: [] });
    expect(JSON.parse(bodyText({ messages: [{ role: "user", content: "hi" }] }))).toEqual({ messages: [{ role: "user", content: "hi" }] });
  });

  it("stringifies a wire object once, however many requests carry it", () => {
    const message = { role: "user", content: "once" };
    const stringify = vi.spyOn(JSON, "stringify");
    cachedJson(message);
    cachedJson(message);
    bodyText({ model: "m", messages: [message] });
    expect(stringify.mock.calls.filter(([value]) => value === message)).toHaveLength(1);
  });

  it("encodes a list that extends the previous one to exactly JSON.stringify's text", () => {
    const history: object[] = [
      { role: "system", content: "extends" },
      { role: "user", content: "one" },
    ];
    bodyText({ messages: history, model: "m" });
    history.push({ role: "assistant", content: "two" }, { role: "user", content: "three" });
    expect(bodyText({ messages: history, model: "m" })).toBe(JSON.stringify({ messages: history, model: "m" }));
  });

  it("encodes a list that grows far past its first buffer, step by step, to exactly JSON.stringify's text", () => {
    const history: object[] = [{ role: "system", content: "grows" }];
    for (let step = 0; step < 300; step++) {
      history.push({ role: "tool", tool_call_id: `c${step}`, content: `${"é".repeat(step)} result ${step}` });
      const body = { messages: history, model: "m", stream: step % 2 === 0 };
      expect(bodyText(body)).toBe(JSON.stringify(body));
    }
  });

  it("encodes a list that differs from the previous one after the first element to its own text", () => {
    const first = { role: "system", content: "differs" };
    const kept = [first, { role: "user", content: "kept" }];
    bodyText({ messages: [first, { role: "user", content: "dropped" }, { role: "user", content: "later" }] });
    expect(bodyText({ messages: kept })).toBe(JSON.stringify({ messages: kept }));
  });

  it("does not take a list changed in place after it was encoded for the bytes it had", () => {
    const list: object[] = [
      { role: "system", content: "in place" },
      { role: "user", content: "before" },
    ];
    bodyText({ messages: list });
    list[1] = { role: "user", content: "after" };
    list.push({ role: "user", content: "more" });
    expect(bodyText({ messages: list })).toBe(JSON.stringify({ messages: list }));
  });

  it("sends the same bytes again for a retry of the same list", () => {
    const list = [
      { role: "system", content: "retry" },
      { role: "user", content: "again" },
    ];
    expect(bodyText({ messages: list, model: "m" })).toBe(bodyText({ messages: list, model: "m" }));
  });
});

describe("bytes of a request in flight", () => {
  it("do not change when the list is extended and encoded again before the request is done", () => {
    const history: object[] = [
      { role: "system", content: "in flight" },
      { role: "user", content: "first" },
    ];
    const inFlight = encodeChatRequest({ messages: history, model: "m" });
    const sent = decode(inFlight.bytes);
    history.push({ role: "assistant", content: "x".repeat(40_000) });
    const next = encodeChatRequest({ messages: history, model: "m" });
    expect(decode(inFlight.bytes)).toBe(sent);
    expect(decode(next.bytes)).toBe(JSON.stringify({ messages: history, model: "m" }));
    inFlight.done();
    next.done();
  });

  it("are extended in place once the request is done (the next body views the same buffer)", () => {
    const history: object[] = [
      { role: "system", content: "in place" },
      { role: "user", content: "first" },
    ];
    const first = encodeChatRequest({ messages: history });
    first.done();
    history.push({ role: "assistant", content: "second" });
    const second = encodeChatRequest({ messages: history });
    expect(second.bytes.buffer).toBe(first.bytes.buffer);
    second.done();
  });
});

describe("listJsonLength", () => {
  it("is the length of JSON.stringify's text of the list", () => {
    expect(listJsonLength(messages)).toBe(JSON.stringify(messages).length);
    expect(listJsonLength([])).toBe(2);
  });
});
