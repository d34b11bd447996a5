/**
 * An incremental SSE reader for Node's fetch: parses `id:`/`event:`/`data:` blocks as bytes arrive, so an
 * e2e test sees each event when the server sends it. Used by test/e2e/support/http-api.ts.
 * Invariant: events come out in wire order; comments (`: ping`) are counted, never returned.
 */

export type SseEvent = {
  id?: string;
  event?: string;
  data: string;
  json: Record<string, unknown> & { type: string; seq: number };
  /** Date.now() when the event's bytes were parsed: shows whether events arrive spread out or all at once. */
  receivedAt: number;
};

export class SseReader {
  private buffer = "";
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  readonly events: SseEvent[] = [];
  comments = 0;

  constructor(response: Response) {
    if (!response.body) throw new Error("SSE response has no body");
    this.reader = response.body.getReader();
  }

  /** The next event, or undefined when the stream ended; throws when none arrives in time. */
  async next(timeoutMs = 10_000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parseOne();
      if (parsed) return parsed;
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
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
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

  private parseOne(): SseEvent | undefined {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end < 0) return undefined;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event: { id?: string; event?: string } = {};
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) this.comments++;
        else if (line.startsWith("id:")) event.id = fieldValue(line, 3);
        else if (line.startsWith("event:")) event.event = fieldValue(line, 6);
        else if (line.startsWith("data:")) data.push(fieldValue(line, 5));
      }
      if (data.length === 0) continue;
      const text = data.join("\n");
      const full: SseEvent = { ...event, data: text, json: JSON.parse(text) as SseEvent["json"], receivedAt: Date.now() };
      this.events.push(full);
      return full;
    }
  }
}

/** The SSE spec strips one space after the colon, no more. */
function fieldValue(line: string, colonEnd: number): string {
  const rest = line.slice(colonEnd);
  return rest.startsWith(" ") ? rest.slice(1) : rest;
}
