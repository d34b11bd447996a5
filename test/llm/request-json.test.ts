/**
 * The request body's JSON text built from cached pieces (src/llm/request-json.ts): it must parse to exactly
 * what JSON.stringify gives, and a wire object already sent is not stringified again.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { cachedJson, serializeChatRequest, serializeList } from "../../src/llm/request-json.ts";

const messages = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather in \"Oslo\"?\n" },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "getWeather", arguments: "{\"city\":\"Oslo\"}" } }] },
  { role: "tool", tool_call_id: "c1", content: "Sunny, 21°C" },
];
const tools = [{ type: "function", function: { name: "getWeather", description: "Weather", parameters: { type: "object", properties: {} } } }];

afterEach(() => vi.restoreAllMocks());

describe("serializeChatRequest", () => {
  it("produces the same JSON as JSON.stringify of the whole body", () => {
    const body = { model: "m", messages, tools, stream: true, stream_options: { include_usage: true } };
    expect(JSON.parse(serializeChatRequest(body))).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it("leaves out tools when the body has none", () => {
    const text = serializeChatRequest({ model: "m", messages });
    expect(JSON.parse(text)).toEqual({ model: "m", messages });
  });

  it("writes a body of messages alone as valid JSON", () => {
    expect(JSON.parse(serializeChatRequest({ messages: [] }))).toEqual({ messages: [] });
  });
});

describe("cached pieces", () => {
  it("serializes a list to exactly JSON.stringify's text", () => {
    expect(serializeList(messages)).toBe(JSON.stringify(messages));
    expect(serializeList([])).toBe("[]");
  });

  it("stringifies a wire object once, however many requests carry it", () => {
    const message = { role: "user", content: "once" };
    const stringify = vi.spyOn(JSON, "stringify");
    cachedJson(message);
    cachedJson(message);
    serializeChatRequest({ model: "m", messages: [message] });
    expect(stringify.mock.calls.filter(([value]) => value === message)).toHaveLength(1);
  });
});
