/**
 * The bytes of a Chat Completions request body. Each wire object's JSON is made once and kept with it (a
 * wire object never changes: formatMsgForLLM returns the same one for a message at every step). A
 * RequestEncoder belongs to one LLM adapter instance, i.e. one run, whose requests are each the previous
 * one plus a few messages: it keeps the message list's encoded bytes and extends them in place, so a step
 * encodes only what it appended. Kept because measured: copying every message's kept bytes into a fresh
 * body instead cost ~0.1–0.35 ms a step at 1,000 messages, and one joined string ~0.4 ms.
 * Invariant: the bytes are the UTF-8 of exactly what JSON.stringify(body) would give.
 */

const jsonByObject = new WeakMap<object, string>();

/** The JSON text of a wire object that never changes once made. */
export function cachedJson(value: object): string {
  let text = jsonByObject.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    jsonByObject.set(value, text);
  }
  return text;
}

/** Characters of `[a,b,…]` for these items, from their kept text (for usage estimates). */
export function listJsonLength(items: readonly object[]): number {
  let length = 2 + Math.max(0, items.length - 1);
  for (const item of items) length += cachedJson(item).length;
  return length;
}

export type ChatRequestBody = { messages: readonly object[]; tools?: readonly object[] | undefined; [field: string]: unknown };

/** A request body's bytes; `done()` once the request has settled, so the next one may extend them in place. */
export type EncodedRequest = { bytes: Uint8Array; done(): void };

const encoder = new TextEncoder();
const HEAD = encoder.encode(`{"messages":`);
const FIRST_CAPACITY = 16 * 1024;

export class RequestEncoder {
  /** The messages encoded so far, and their bytes: `{"messages":[a,b,…` up to `end` (no closing `]`). */
  private items: readonly object[] = [];
  private bytes = new Uint8Array(FIRST_CAPACITY);
  private end = 0;
  /** Set while a request's bytes are in flight (fetch reads them after it returns): they must not change. */
  private sending = false;

  encode(body: ChatRequestBody): EncodedRequest {
    const { messages, tools, ...rest } = body;
    let tail = "]";
    if (tools !== undefined) tail += `,"tools":[${tools.map(cachedJson).join(",")}]`;
    const others = JSON.stringify(rest);
    tail += others === "{}" ? "}" : `,${others.slice(1)}`;
    if (this.sending) {
      // The previous request is still being read: keep its bytes, continue in a copy.
      this.bytes = this.bytes.slice();
      this.sending = false;
    }
    let from = this.extends(messages) ? this.items.length : 0;
    if (from === 0) {
      this.bytes.set(HEAD, 0);
      this.end = this.write("[", HEAD.length);
    }
    for (; from < messages.length; from++) this.end = this.write((from === 0 ? "" : ",") + cachedJson(messages[from]!), this.end);
    // A copy: the caller may change its array later.
    this.items = messages.slice();
    const end = this.write(tail, this.end);
    this.sending = true;
    return {
      bytes: this.bytes.subarray(0, end),
      done: () => {
        this.sending = false;
      },
    };
  }

  /** True when `messages` starts with the messages already encoded (the same wire objects). */
  private extends(messages: readonly object[]): boolean {
    const kept = this.items;
    if (kept.length === 0 || kept.length > messages.length) return false;
    for (let i = kept.length - 1; i >= 0; i--) if (messages[i] !== kept[i]) return false;
    return true;
  }

  /** Encodes `text` at `at`, growing the buffer (keeping what is before `at`) until it fits; the new end. */
  private write(text: string, at: number): number {
    for (;;) {
      const { read, written } = encoder.encodeInto(text, this.bytes.subarray(at));
      if (read === text.length) return at + written;
      // A UTF-16 unit encodes to at most 3 bytes.
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, at + text.length * 3));
      grown.set(this.bytes.subarray(0, at));
      this.bytes = grown;
    }
  }
}
