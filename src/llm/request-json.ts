/**
 * The bytes of a Chat Completions request body, built from each wire object's UTF-8 JSON, which is kept with
 * the object (core/kept-with.ts): formatMsgForLLM hands over the same wire objects at every step (each kept
 * with its stored message), so a step encodes only the messages it appended and copies the rest.
 * Invariant: the bytes are the UTF-8 of exactly what JSON.stringify(body) would give.
 */
import { keptWith } from "../core/index.ts";

const JSON_BYTES = Symbol("jsonBytes");
const encoder = new TextEncoder();
const HEAD = encoder.encode(`{"messages":[`);
const COMMA = encoder.encode(",");

/** The object's JSON as UTF-8; wire objects never change once formatted, so it is encoded once. */
export function jsonBytes(value: object): Uint8Array {
  return keptWith(value, JSON_BYTES, () => encoder.encode(JSON.stringify(value)));
}

/** UTF-8 bytes of `[a,b,…]` for these items, from their kept bytes (for usage estimates). */
export function listJsonLength(items: readonly object[]): number {
  let length = 2 + Math.max(0, items.length - 1);
  for (const item of items) length += jsonBytes(item).length;
  return length;
}

export type ChatRequestBody = { messages: readonly object[]; tools?: readonly object[] | undefined; [field: string]: unknown };

/** The body's UTF-8 JSON: messages and tools from their kept bytes, every other field stringified as usual. */
export function encodeChatRequest(body: ChatRequestBody): Uint8Array {
  const { messages, tools, ...rest } = body;
  const parts: Uint8Array[] = [HEAD];
  const list = (items: readonly object[]) => items.forEach((item, i) => (i > 0 ? parts.push(COMMA, jsonBytes(item)) : parts.push(jsonBytes(item))));
  list(messages);
  const others = JSON.stringify(rest);
  if (tools === undefined) parts.push(encoder.encode(others === "{}" ? "]}" : `],${others.slice(1)}`));
  else {
    parts.push(encoder.encode(`],"tools":[`));
    list(tools);
    parts.push(encoder.encode(others === "{}" ? "]}" : `],${others.slice(1)}`));
  }
  let size = 0;
  for (const part of parts) size += part.length;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
