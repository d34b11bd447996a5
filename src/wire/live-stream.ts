/**
 * One live SSE byte stream to one reader, with the bounds every live stream of a session shares: writes
 * are never awaited, a reader that leaves MAX_UNREAD_BYTES unread is cut off (it reconnects with
 * Last-Event-ID and replays from the log), and a ping comment every HEARTBEAT_MS keeps proxies from dropping
 * an idle stream and reveals a vanished reader. Used by the session's fan-out (live-fanout.ts) for streams
 * over RPC, and by the Worker's socket bridge (src/http/event-bridge.ts) for `/events`.
 */
import { formatSseComment } from "./sse.ts";

/** Proxies and browsers drop silent connections; wrangler dev notices a gone reader only on write. */
export const HEARTBEAT_MS = 15_000;
/** Bytes a reader may leave unread before its stream is cut. */
export const MAX_UNREAD_BYTES = 1_000_000;

const encoder = new TextEncoder();
const PING = encoder.encode(formatSseComment("ping"));

export type LiveStream = {
  readable: ReadableStream<Uint8Array>;
  /** Queues bytes for the reader; cuts the stream instead when the reader is too far behind. */
  write(chunk: string | Uint8Array): void;
  /** Ends the stream after what was written (idempotent). */
  end(): void;
  readonly open: boolean;
};

/** `onEnd` runs once when the stream ends for any reason: `end()`, a reader that left or fell behind. */
export function createLiveStream(onEnd: () => void = () => undefined, heartbeatMs = HEARTBEAT_MS): LiveStream {
  // The bound is on the writable side: desiredSize there is what `write` checks.
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, {
    highWaterMark: MAX_UNREAD_BYTES,
    size: (chunk) => chunk.byteLength,
  });
  const writer = writable.getWriter();
  let open = true;
  const end = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    writer.close().catch(() => undefined);
    onEnd();
  };
  const write = (chunk: string | Uint8Array) => {
    if (!open) return;
    const room = writer.desiredSize;
    if (room !== null && room <= 0) return end();
    writer.write(typeof chunk === "string" ? encoder.encode(chunk) : chunk).catch(end);
  };
  const heartbeat = setInterval(() => write(PING), heartbeatMs);
  // The reader leaving (a cancelled body) ends the stream at once, not at the next heartbeat.
  writer.closed.then(end, end);
  return {
    readable,
    write,
    end,
    get open() {
      return open;
    },
  };
}
