/**
 * An incremental Server-Sent Events parser (the WHATWG event-stream rules) over raw bytes or text.
 * The one parser of the wire format (src/wire/sse.ts writes it): used by the client SDK's event stream,
 * one parser per connection, and by the tests' SSE reader; chunks may split anywhere, even inside
 * a UTF-8 sequence or between CR and LF. Invariants: items come out in stream order; an event is emitted
 * only once its terminating blank line arrived, so a connection cut mid-event yields nothing of it.
 */

/** A dispatched event. `id` is the id field of this very event (absent when it had none). */
export type SseMessage = {
  kind: "message";
  event: string;
  data: string;
  id?: string;
  /** The stream's last event id after this event (ids are sticky across events, as in EventSource). */
  lastEventId: string;
};
export type SseItem = SseMessage | { kind: "retry"; ms: number } | { kind: "comment"; text: string };

export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private started = false;
  private partialLine = "";
  /** The previous chunk ended in CR: a LF at the start of the next one belongs to that line end. */
  private pendingCr = false;
  private data: string[] = [];
  private eventType = "";
  private eventId: string | undefined;
  private lastEventId = "";

  /** Parses one chunk; returns the items it completed, in order. */
  feed(chunk: Uint8Array | string): SseItem[] {
    let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    // TextDecoder already drops a leading BOM from bytes; text input needs the same rule.
    if (!this.started && text.length > 0) {
      this.started = true;
      if (typeof chunk === "string" && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const items: SseItem[] = [];
    const buffer = this.partialLine + text;
    let pos = 0;
    if (this.pendingCr && buffer.startsWith("\n")) pos = 1;
    this.pendingCr = false;
    for (;;) {
      const end = nextLineBreak(buffer, pos);
      if (end === -1) break;
      const line = buffer.slice(pos, end);
      if (buffer[end] === "\r") {
        if (end + 1 === buffer.length) {
          this.pendingCr = true;
          pos = end + 1;
        } else {
          pos = buffer[end + 1] === "\n" ? end + 2 : end + 1;
        }
      } else {
        pos = end + 1;
      }
      this.processLine(line, items);
    }
    this.partialLine = buffer.slice(pos);
    return items;
  }

  private processLine(line: string, items: SseItem[]): void {
    if (line === "") {
      this.dispatch(items);
      return;
    }
    if (line.startsWith(":")) {
      items.push({ kind: "comment", text: line.slice(1).replace(/^ /, "") });
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        this.eventType = value;
        break;
      case "data":
        this.data.push(value);
        break;
      case "id":
        // The spec ignores ids containing NUL, so one bad id cannot poison reconnection.
        if (!value.includes("\0")) {
          this.eventId = value;
          this.lastEventId = value;
        }
        break;
      case "retry":
        if (/^\d+$/.test(value)) items.push({ kind: "retry", ms: Number(value) });
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  private dispatch(items: SseItem[]): void {
    const id = this.eventId;
    const event = this.eventType || "message";
    const data = this.data;
    this.data = [];
    this.eventType = "";
    this.eventId = undefined;
    // A block without data (e.g. only `retry:` or only `id:`) dispatches nothing, per the spec.
    if (data.length === 0) return;
    const message: SseMessage = { kind: "message", event, data: data.join("\n"), lastEventId: this.lastEventId };
    if (id !== undefined) message.id = id;
    items.push(message);
  }
}

function nextLineBreak(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return -1;
}
