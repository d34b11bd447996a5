/**
 * Fans stamped events out to the session's open SSE streams. Writes are never awaited by the agent:
 * each subscriber has its own stream, and one whose unread backlog grows past a bound is closed (its
 * client reconnects with Last-Event-ID and replays from the log), so a slow or dead reader never stalls
 * the run. A heartbeat comment keeps idle streams open and reveals vanished clients.
 */
import { formatSse, formatSseComment } from "../http/sse.ts";

/** Proxies and browsers drop silent connections; wrangler dev notices a gone client only on write. */
export const HEARTBEAT_INTERVAL_MS = 15_000;
/** Bytes a subscriber may leave unread before it is cut off. */
export const MAX_SUBSCRIBER_BACKLOG_BYTES = 1_000_000;

type Subscriber = { writer: WritableStreamDefaultWriter<Uint8Array>; closed: boolean };

const encoder = new TextEncoder();

export class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  get size(): number {
    return this.subscribers.size;
  }

  /**
   * Opens a stream whose first bytes are `initial` (the replay) and which then receives every published
   * event. Call it in the same synchronous block as reading the replay, so nothing falls in between.
   */
  subscribe(initial: string[], signal?: AbortSignal): ReadableStream<Uint8Array> {
    // The backlog bound is on the writable side: desiredSize there is what `write` checks.
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, {
      highWaterMark: MAX_SUBSCRIBER_BACKLOG_BYTES,
      size: (chunk) => chunk.byteLength,
    });
    const subscriber: Subscriber = { writer: writable.getWriter(), closed: false };
    this.subscribers.add(subscriber);
    for (const chunk of initial) this.write(subscriber, chunk);
    signal?.addEventListener("abort", () => this.drop(subscriber), { once: true });
    this.ensureHeartbeat();
    return readable;
  }

  publish(id: number, event: string, json: string): void {
    if (this.subscribers.size === 0) return;
    const chunk = formatSse({ id, event, data: json });
    for (const subscriber of this.subscribers) this.write(subscriber, chunk);
  }

  /** Sends a final message (if any) and ends every stream, e.g. on shutdown. */
  closeAll(finalChunk?: string): void {
    for (const subscriber of [...this.subscribers]) {
      if (finalChunk) this.write(subscriber, finalChunk);
      this.drop(subscriber);
    }
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
      const ping = formatSseComment("ping");
      for (const subscriber of [...this.subscribers]) this.write(subscriber, ping);
    }, HEARTBEAT_INTERVAL_MS);
  }
}
