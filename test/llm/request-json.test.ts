/**
 * The request body's bytes built from each wire object's kept JSON text (src/llm/request-json.ts): they
 * must decode to exactly what JSON.stringify gives, at every step of a growing history.
 */
import { describe, expect, it } from "vitest";
import { encodeChatRequest, listJsonLength, type ChatRequestBody } from "../../src/llm/request-json.ts";

const messages = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather in \"Oslo\"?\n" },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "getWeather", arguments: "{\"city\":\"Oslo\"}" } }] },
  { role: "tool", tool_call_id: "c1", content: "Sunny, 21°C ☀️ — 東京も晴れ" },
];
const tools = [{ type: "function", function: { name: "getWeather", description: "Weather", parameters: { type: "object", properties: {} } } }];

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bodyText = (body: ChatRequestBody): string => decode(encodeChatRequest(body));

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

  it("encodes a list that extends the previous one to exactly JSON.stringify's text", () => {
    const history: object[] = [{ role: "system", content: "extends" }, { role: "user", content: "one" }];
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

  it("does not take a list changed in place after it was encoded for the bytes it had", () => {
    const list: object[] = [{ role: "system", content: "in place" }, { role: "user", content: "before" }];
    bodyText({ messages: list });
    list[1] = { role: "user", content: "after" };
    list.push({ role: "user", content: "more" });
    expect(bodyText({ messages: list })).toBe(JSON.stringify({ messages: list }));
  });

  it("sends the same bytes again for a retry of the same list", () => {
    const list = [{ role: "system", content: "retry" }, { role: "user", content: "again" }];
    expect(bodyText({ messages: list, model: "m" })).toBe(bodyText({ messages: list, model: "m" }));
  });
});

describe("listJsonLength", () => {
  it("is the UTF-8 length of JSON.stringify's text of the list", () => {
    expect(listJsonLength(messages)).toBe(new TextEncoder().encode(JSON.stringify(messages)).length);
    expect(listJsonLength([])).toBe(2);
  });
});
