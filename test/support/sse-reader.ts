/**
 * The tests' incremental SSE reader, for workerd integration tests and Node end-to-end tests alike:
 * it feeds response bytes to the client SDK's parser as they arrive, so a test sees each event when the
 * server sends it. Events come out in wire order; comments (`: ping`) are counted, never returned.
 */
import { SseParser } from "../../src/wire/sse-parser.ts";

export type SseEvent = {
  id?: string;
  event?: string;
  data: string;
  json: Record<string, unknown> & { type: string; seq: number };
  /** Date.now() when the event's bytes were parsed: shows whether events arrive spread out or all at once. */
  receivedAt: number;
};

export class SseReader {
  private readonly parser = new SseParser();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly ready: SseEvent[] = [];
  readonly events: SseEvent[] = [];
  comments = 0;

  constructor(response: Response) {
    if (!response.body) throw new Error("SSE response has no body");
    this.reader = response.body.getReader();
  }

  /** The next event, or undefined when the stream ended; throws when none arrives in time. */
  async next(timeoutMs = 10_000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.ready.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE event within ${timeoutMs} ms; got ${this.events.map((e) => e.event).join(",")}`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<"timeout">((done) => (timer = setTimeout(() => done("timeout"), left))),
      ]);
      clearTimeout(timer);
      if (chunk === "timeout") continue;
      if (chunk.done) return undefined;
      this.take(chunk.value);
    }
    return this.ready.shift();
  }

  /** Reads until an event of `type` arrives; returns every event read on the way, that one included. */
  async until(type: string, timeoutMs = 30_000): Promise<SseEvent[]> {
    const seen: SseEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = await this.next(Math.max(1, deadline - Date.now()));
      if (!event) throw new Error(`stream ended before ${type}; got ${seen.map((e) => e.event).join(",")}`);
      seen.push(event);
      if (event.event === type) return seen;
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  private take(bytes: Uint8Array): void {
    for (const item of this.parser.feed(bytes)) {
      if (item.kind === "comment") this.comments++;
      if (item.kind !== "message") continue;
      const event: SseEvent = {
        ...(item.id !== undefined ? { id: item.id } : {}),
        event: item.event,
        data: item.data,
        json: JSON.parse(item.data) as SseEvent["json"],
        receivedAt: Date.now(),
      };
      this.events.push(event);
      this.ready.push(event);
    }
  }
}
