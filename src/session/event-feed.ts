/**
 * A session's event feed: the bytes of its SSE stream. What the client missed (after the seq it names) is
 * replayed from the log, then every new event follows live. Replay and subscription happen in one
 * synchronous block, so the client sees no gap and no duplicate. A client asking for events already
 * trimmed gets an `eventsDropped` first. The router validates Last-Event-ID and wraps the bytes in the
 * SSE response (src/http/events-route.ts).
 */
import { eventsDropped } from "../wire/events.ts";
import { formatSse } from "../wire/sse.ts";
import type { LiveFanout } from "./live-fanout.ts";
import type { EventLog } from "./event-log.ts";
import { finalEventsResponse, type EventSockets } from "./event-sockets.ts";
import { ok, refuse, type SessionResult } from "./session-result.ts";

/** Browsers wait this long before reconnecting an EventSource. */
const CLIENT_RETRY_MS = 1_000;

type StreamParts = { log: EventLog; hub: LiveFanout; runs: { readonly isShutdown: boolean } };

export function openEventStream({ log, hub, runs }: StreamParts, afterSeq: number): SessionResult<ReadableStream<Uint8Array>> {
  const closed = runs.isShutdown;
  // A shut-down session replays what a client has not seen yet, then says it is gone so clients stop.
  if (closed && afterSeq >= log.lastSeq) return refuse("shut_down", "Session is shut down; no further events");
  const chunks = replayChunks(log, afterSeq);
  if (closed) return ok(finiteStream(chunks.join("")));
  return ok(hub.subscribe(chunks));
}

/**
 * The socket path (event-sockets.ts): the same replay, then live events through a hibernatable socket
 * (a 101 response), or for a shut-down session the replay alone as a finite SSE body.
 */
export function attachEventSocket({ log, hub, runs, sockets }: StreamParts & { sockets: EventSockets }, afterSeq: number): SessionResult<Response> {
  const closed = runs.isShutdown;
  if (closed && afterSeq >= log.lastSeq) return refuse("shut_down", "Session is shut down; no further events");
  // Unflushed events are in the log this replay reads: they belong to the subscribers attached before.
  hub.flush();
  const replay = replayChunks(log, afterSeq).join("");
  return ok(closed ? finalEventsResponse(replay) : sockets.attach(replay));
}

/** What a client that saw up to `afterSeq` missed: the retry hint, a trimmed-log notice if due, the events. */
function replayChunks(log: EventLog, afterSeq: number): string[] {
  const chunks: string[] = [`retry: ${CLIENT_RETRY_MS}\n\n`];
  const oldest = log.oldestSeq();
  if (afterSeq + 1 < oldest) {
    const notice = eventsDropped(log.sessionId, afterSeq, oldest, Date.now());
    chunks.push(formatSse({ event: notice.type, data: JSON.stringify(notice) }));
  }
  for (const row of log.readAfter(afterSeq)) chunks.push(formatSse({ id: row.seq, event: row.type, data: row.json }));
  return chunks;
}

function finiteStream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
