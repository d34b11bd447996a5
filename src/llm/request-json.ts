/**
 * The bytes of a Chat Completions request body, built from each wire object's JSON text, which is kept with
 * the object (core/kept-with.ts): formatMsgForLLM hands over the same wire objects at every step (each kept
 * with its stored message), so a step stringifies only the messages it appended.
 * Invariant: the bytes are the UTF-8 of exactly what JSON.stringify(body) would give.
 */
import { keptWith } from "../core/index.ts";

const JSON_TEXT = Symbol("jsonText");

/** The object's JSON text; wire objects never change once formatted, so it is made once. */
export function cachedJson(value: object): string {
  return keptWith(value, JSON_TEXT, () => JSON.stringify(value));
}

/** Characters of `[a,b,…]` for these items, from their kept text (for usage estimates). */
export function listJsonLength(items: readonly object[]): number {
  let length = 2 + Math.max(0, items.length - 1);
  for (const item of items) length += cachedJson(item).length;
  return length;
}

const encoder = new TextEncoder();

export type ChatRequestBody = { messages: readonly object[]; tools?: readonly object[] | undefined; [field: string]: unknown };

/** The body's UTF-8 JSON: messages and tools from their kept text, every other field stringified as usual. */
export function encodeChatRequest(body: ChatRequestBody): Uint8Array {
  const { messages, tools, ...rest } = body;
  const others = JSON.stringify(rest);
  let text = `{"messages":[${messages.map(cachedJson).join(",")}]`;
  if (tools !== undefined) text += `,"tools":[${tools.map(cachedJson).join(",")}]`;
  text += others === "{}" ? "}" : `,${others.slice(1)}`;
  return encoder.encode(text);
}
