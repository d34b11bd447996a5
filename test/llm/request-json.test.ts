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

  it("serializes a list that extends the previous one to exactly JSON.stringify's text", () => {
    const history: object[] = [{ role: "system", content: "extends" }, { role: "user", content: "one" }];
    serializeList(history);
    history.push({ role: "assistant", content: "two" }, { role: "user", content: "three" });
    expect(serializeList(history)).toBe(JSON.stringify(history));
  });

  it("serializes a list that differs from the previous one after the first element to its own text", () => {
    const first = { role: "system", content: "differs" };
    const kept = [first, { role: "user", content: "kept" }];
    serializeList([first, { role: "user", content: "dropped" }, { role: "user", content: "later" }]);
    expect(serializeList(kept)).toBe(JSON.stringify(kept));
  });

  it("does not take a list changed in place after it was serialized for the text it had", () => {
    const list: object[] = [{ role: "system", content: "in place" }, { role: "user", content: "before" }];
    serializeList(list);
    list[1] = { role: "user", content: "after" };
    list.push({ role: "user", content: "more" });
    expect(serializeList(list)).toBe(JSON.stringify(list));
  });
});
