/**
 * JSON text of a Chat Completions request body, built from pieces serialized once per wire object.
 * formatMsgForLLM returns each history message as the same object at every step, so a step stringifies
 * only what is new, and a list that extends the last one serialized reuses its joined text. Called by the
 * OpenAI adapter, which sends the text as the request body. Invariant: the text parses to exactly what
 * JSON.stringify(body) would.
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

/**
 * The last list serialized that began with a given object, and its text without the closing `]`. A step's
 * message list is the previous step's plus what was appended, so comparing references (cheap) finds the
 * part whose text is already joined. Each session's requests start with its own system message object
 * (format-messages.ts); a list whose first object is new each time costs a full join, never a wrong text.
 */
const lastListByFirst = new WeakMap<object, { items: readonly object[]; open: string }>();

/** `[a,b,…]` from each element's cached text: the same text as JSON.stringify(items). */
export function serializeList(items: readonly object[]): string {
  if (items.length === 0) return "[]";
  const last = lastListByFirst.get(items[0]!);
  const reuse = last !== undefined && startsWith(items, last.items);
  let text = reuse ? last.open : "[";
  for (let i = reuse ? last.items.length : 0; i < items.length; i++) text += (i === 0 ? "" : ",") + cachedJson(items[i]!);
  // A copy: the caller may change its array later.
  lastListByFirst.set(items[0]!, { items: items.slice(), open: text });
  return `${text}]`;
}

function startsWith(items: readonly object[], prefix: readonly object[]): boolean {
  if (prefix.length > items.length) return false;
  for (let i = prefix.length - 1; i >= 0; i--) if (items[i] !== prefix[i]) return false;
  return true;
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
