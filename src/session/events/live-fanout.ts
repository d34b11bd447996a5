/**
 * The session's live fan-out: every stored event goes to every live subscriber, both kinds of them. Streams
 * over RPC (`/chat`, openEvents) each get a live stream of their own (src/wire/live-stream.ts); subscribers attached
 * by WebSocket (`/events`, event-sockets.ts, the path that lets an idle object sleep) get the same bursts,
 * and the Worker's bridge holds their SSE response with the same bounds. Writes are never awaited by the
 * agent. Events published in one synchronous burst (e.g. a tool's partial results) go out as one write per
 * subscriber, flushed in a microtask: a write's cost is paid per burst, not per event, with no added latency.
 */
import { formatSse } from "../../wire/sse.ts";
import { createLiveStream, type LiveStream } from "../../wire/live-stream.ts";

/** Subscribers reached another way (event-sockets.ts): told each burst, and when the streams end. */
export type SocketSubscribers = { readonly active: boolean; send(chunk: string): void; closeAll(finalChunk?: string): void };

export class LiveFanout {
  private readonly streams = new Set<LiveStream>();
  /** Formatted events published since the last flush, in publish order. */
  private pending: string[] = [];
  private flushQueued = false;

  constructor(private readonly sockets?: SocketSubscribers) {}

  get size(): number {
    return this.streams.size;
  }

  /**
   * Opens a stream whose first bytes are `initial` (the replay) and which then receives every published
   * event. Call it in the same synchronous block as reading the replay, so nothing falls in between.
   */
  subscribe(initial: string[], signal?: AbortSignal): ReadableStream<Uint8Array> {
    // Unflushed events are already in the log the caller replayed from: they belong to the old subscribers only.
    this.flush();
    const stream: LiveStream = createLiveStream(() => this.streams.delete(stream));
    this.streams.add(stream);
    if (initial.length > 0) stream.write(initial.join(""));
    signal?.addEventListener("abort", () => stream.end(), { once: true });
    return stream.readable;
  }

  publish(id: number, event: string, json: string): void {
    if (this.streams.size === 0 && !this.sockets?.active) return;
    this.pending.push(formatSse({ id, event, data: json }));
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    }
  }

  /**
   * An event that could not be stored (storage itself failed), sent live without an SSE id: a client's
   * Last-Event-ID stays at the last stored event, so its replay after a reconnect skips nothing.
   */
  publishUnstored(event: string, json: string): void {
    this.pending.push(formatSse({ event, data: json }));
    this.flush();
  }

  /** Writes every pending event to every subscriber, as one chunk each. */
  flush(): void {
    this.flushQueued = false;
    if (this.pending.length === 0) return;
    const chunk = this.pending.join("");
    this.pending = [];
    for (const stream of this.streams) stream.write(chunk);
    this.sockets?.send(chunk);
  }

  /** Ends the streams this instance serves over RPC; socket subscribers outlive it (the next instance finds them). */
  endStreams(): void {
    this.flush();
    for (const stream of [...this.streams]) stream.end();
  }

  /** Sends a final message (if any) and ends every stream, e.g. on shutdown. */
  closeAll(finalChunk?: string): void {
    this.flush();
    for (const stream of [...this.streams]) {
      if (finalChunk) stream.write(finalChunk);
      stream.end();
    }
    this.sockets?.closeAll(finalChunk);
  }
}
