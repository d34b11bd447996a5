/**
 * The bytes of a Chat Completions request body, built from pieces serialized once per wire object.
 * formatMsgForLLM returns each history message as the same object at every step, so a step stringifies
 * only what is new. The message list's encoded JSON is kept in a buffer per history and extended in place:
 * a step encodes only the messages it appended and sends a view of that buffer, so no body-sized string
 * or buffer is made per request. (Making one was the step's cost that grew with history: V8 flattens a
 * 250 KB joined string into a new large-object allocation at every fetch, ~0.5 ms at 1,000 messages,
 * where encoding two new messages and viewing the kept bytes costs a few µs.)
 * Invariant: the bytes are the UTF-8 of exactly what JSON.stringify(body) would give.
 * Kept because measured: with the step caches of format-messages, context-budget, history-windows and
 * request-json removed, the step took 1.45× as long at 1,000 messages (interleaved bench:ab, non-streaming).
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

/** Characters of `[a,b,…]` for these items, from their cached text (for usage estimates). */
export function listJsonLength(items: readonly object[]): number {
  let length = 2 + Math.max(0, items.length - 1);
  for (const item of items) length += cachedJson(item).length;
  return length;
}

const encoder = new TextEncoder();
const HEAD = encoder.encode(`{"messages":`);
/** Free bytes before a list's `[`: a request writes its head there, so head, list and tail are one view. */
const HEAD_ROOM = HEAD.length;
const FIRST_CAPACITY = 16 * 1024;

/**
 * A list's encoded JSON without its closing `]`, at `HEAD_ROOM`…`end` of `bytes`. The bytes before `end`
 * never change once written; a request writes its tail after `end`, which the next request overwrites.
 * `sending` is set while a request's bytes are in flight (workerd reads a body's buffer after fetch()
 * returns): a list extended meanwhile is copied to a new buffer rather than written under that request.
 */
type EncodedList = { items: readonly object[]; bytes: Uint8Array; end: number; sending: boolean };

/**
 * The last list encoded that began with a given object. A step's message list is the previous step's plus
 * what was appended, so comparing references (cheap) finds the part already encoded. Each session's
 * requests start with its own system message object (format-messages.ts); a list whose first object is new
 * each time costs a full encoding, never a wrong body.
 */
const listByFirst = new WeakMap<object, EncodedList>();

/** The encoded list for `items`, extending the one kept for the same first object when `items` extends it. */
function encodeList(items: readonly object[]): EncodedList {
  const last = listByFirst.get(items[0]!);
  let list: EncodedList;
  let from: number;
  if (last !== undefined && startsWith(items, last.items)) {
    list = last.sending ? { items: last.items, bytes: last.bytes.slice(), end: last.end, sending: false } : last;
    from = last.items.length;
  } else {
    list = { items: [], bytes: new Uint8Array(FIRST_CAPACITY), end: HEAD_ROOM, sending: false };
    list.end = write(list, "[", list.end);
    from = 0;
  }
  for (let i = from; i < items.length; i++) list.end = write(list, (i === 0 ? "" : ",") + cachedJson(items[i]!), list.end);
  // A copy: the caller may change its array later.
  list.items = items.slice();
  listByFirst.set(items[0]!, list);
  return list;
}

/** Encodes `text` at `at`, growing the buffer (keeping what is before `at`) until it fits; the new end. */
function write(list: EncodedList, text: string, at: number): number {
  for (;;) {
    const { read, written } = encoder.encodeInto(text, list.bytes.subarray(at));
    if (read === text.length) return at + written;
    // A UTF-16 unit encodes to at most 3 bytes.
    const grown = new Uint8Array(Math.max(list.bytes.length * 2, at + text.length * 3));
    grown.set(list.bytes.subarray(0, at));
    list.bytes = grown;
  }
}

function startsWith(items: readonly object[], prefix: readonly object[]): boolean {
  if (prefix.length > items.length) return false;
  for (let i = prefix.length - 1; i >= 0; i--) if (items[i] !== prefix[i]) return false;
  return true;
}

export type ChatRequestBody = { messages: readonly object[]; tools?: readonly object[] | undefined; [field: string]: unknown };

/** A request body's bytes; `done()` once the request has settled, so the next step may extend them in place. */
export type EncodedRequest = { bytes: Uint8Array; done(): void };

/** The body's UTF-8 JSON: messages and tools from cached pieces, every other field stringified as usual. */
export function encodeChatRequest(body: ChatRequestBody): EncodedRequest {
  const { messages, tools, ...rest } = body;
  let tail = "";
  if (tools !== undefined) tail += `,"tools":[${tools.map(cachedJson).join(",")}]`;
  const others = JSON.stringify(rest);
  tail += others === "{}" ? "}" : `,${others.slice(1)}`;
  if (messages.length === 0) return { bytes: encoder.encode(`{"messages":[]${tail}`), done: () => {} };
  const list = encodeList(messages);
  list.bytes.set(HEAD, HEAD_ROOM - HEAD.length);
  const end = write(list, `]${tail}`, list.end);
  list.sending = true;
  return {
    bytes: list.bytes.subarray(HEAD_ROOM - HEAD.length, end),
    done: () => {
      list.sending = false;
    },
  };
}
