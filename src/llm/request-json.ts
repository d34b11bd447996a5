/**
 * JSON text of a Chat Completions request body, built from pieces serialized once per wire object.
 * formatMsgForLLM returns each history message as the same object at every step, so a step stringifies
 * only what is new and joins cached text for the rest. Called by the OpenAI adapter, which hands the text
 * to the SDK as an opaque body. Invariant: the text parses to exactly what JSON.stringify(body) would.
 */

/** Wire objects are never changed once formatted (append-only history), so their text can be kept. */
const jsonByObject = new WeakMap<object, string>();

export function cachedJson(value: object): string {
  let text = jsonByObject.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    jsonByObject.set(value, text);
  }
  return text;
}

/** `[a,b,…]` from each element's cached text: the same text as JSON.stringify(items). */
export function serializeList(items: readonly object[]): string {
  let text = "[";
  for (let i = 0; i < items.length; i++) text += (i === 0 ? "" : ",") + cachedJson(items[i]!);
  return `${text}]`;
}

export type ChatRequestBody = { messages: readonly object[]; tools?: readonly object[] | undefined; [field: string]: unknown };

/** The body's JSON text: messages and tools from cached pieces, every other field stringified as usual. */
export function serializeChatRequest(body: ChatRequestBody): string {
  const { messages, tools, ...rest } = body;
  let text = `{"messages":${serializeList(messages)}`;
  if (tools !== undefined) text += `,"tools":${serializeList(tools)}`;
  const others = JSON.stringify(rest);
  return others === "{}" ? `${text}}` : `${text},${others.slice(1)}`;
}
