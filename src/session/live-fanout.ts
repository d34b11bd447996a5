/**
 * Fans stamped events out to the session's open SSE streams. Writes are never awaited by the agent:
 * each subscriber has its own stream, and one whose unread backlog grows past a bound is closed (its
 * client reconnects with Last-Event-ID and replays from the log), so a slow or dead reader never stalls
 * the run. A heartbeat comment keeps idle streams open and reveals vanished clients. Events published in
 * one synchronous burst (e.g. a tool's partial results) go out as one write per subscriber, flushed in a
 * microtask: the cost of a write is paid per burst, not per event, and no latency is added. The same
 * bursts go to subscribers attached by WebSocket (`sockets`, the path that lets an idle object sleep).
 */
import { formatSse, formatSseComment } from "../wire/sse.ts";

/** Proxies and browsers drop silent connections; wrangler dev notices a gone client only on write. */
export const HEARTBEAT_INTERVAL_MS = 15_000;
/** Bytes a subscriber may leave unread before it is cut off. */
export const MAX_SUBSCRIBER_BACKLOG_BYTES = 1_000_000;

type Subscriber = { writer: WritableStreamDefaultWriter<Uint8Array>; closed: boolean };

/** Subscribers reached another way (event-sockets.ts): told each burst, and when the streams end. */
export type SocketSubscribers = { readonly active: boolean; send(chunk: string): void; closeAll(finalChunk?: string): void };

const encoder = new TextEncoder();

export class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** Formatted events published since the last flush, in publish order. */
  private pending: string[] = [];
  private flushQueued = false;

  constructor(private readonly sockets?: SocketSubscribers) {}

  get size(): number {
    return this.subscribers.size;
  }

  /**
   * Opens a stream whose first bytes are `initial` (the replay) and which then receives every published
   * event. Call it in the same synchronous block as reading the replay, so nothing falls in between.
   */
  subscribe(initial: string[], signal?: AbortSignal): ReadableStream<Uint8Array> {
    // Unflushed events are already in the log the caller replayed from: they belong to the old subscribers only.
    this.flush();
    // The backlog bound is on the writable side: desiredSize there is what `write` checks.
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, {
      highWaterMark: MAX_SUBSCRIBER_BACKLOG_BYTES,
      size: (chunk) => chunk.byteLength,
    });
    const subscriber: Subscriber = { writer: writable.getWriter(), closed: false };
    this.subscribers.add(subscriber);
    if (initial.length > 0) this.write(subscriber, initial.join(""));
    signal?.addEventListener("abort", () => this.drop(subscriber), { once: true });
    this.ensureHeartbeat();
    return readable;
  }

  publish(id: number, event: string, json: string): void {
    if (this.subscribers.size === 0 && !this.sockets?.active) return;
    this.pending.push(formatSse({ id, event, data: json }));
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** Writes every pending event to every subscriber, as one chunk each. */
  flush(): void {
    this.flushQueued = false;
    if (this.pending.length === 0) return;
    const chunk = this.pending.join("");
    this.pending = [];
    for (const subscriber of this.subscribers) this.write(subscriber, chunk);
    this.sockets?.send(chunk);
  }

  /** Sends a final message (if any) and ends every stream, e.g. on shutdown. */
  closeAll(finalChunk?: string): void {
    this.flush();
    for (const subscriber of [...this.subscribers]) {
      if (finalChunk) this.write(subscriber, finalChunk);
      this.drop(subscriber);
    }
    this.sockets?.closeAll(finalChunk);
  }

  private write(subscriber: Subscriber, chunk: string): void {
    if (subscriber.closed) return;
    const desired = subscriber.writer.desiredSize;
    if (desired !== null && desired <= 0) {
      this.drop(subscriber);
      return;
    }
    subscriber.writer.write(encoder.encode(chunk)).catch(() => this.drop(subscriber));
  }

  private drop(subscriber: Subscriber): void {
    if (subscriber.closed) return;
    subscriber.closed = true;
    this.subscribers.delete(subscriber);
    subscriber.writer.close().catch(() => undefined);
    if (this.subscribers.size === 0 && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  private ensureHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      this.flush();
      const ping = formatSseComment("ping");
      for (const subscriber of [...this.subscribers]) this.write(subscriber, ping);
    }, HEARTBEAT_INTERVAL_MS);
  }
}
