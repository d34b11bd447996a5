/**
 * A session's event feed: the bytes of its SSE stream. What the client missed (after the seq it names) is
 * replayed from the log one bounded page at a time (as the reader takes them), then every new event
 * follows live. The last page and the subscription happen in one synchronous block, so the client sees
 * no gap and no duplicate. A client asking for events already trimmed gets an `eventsDropped` first. The
 * router validates Last-Event-ID and wraps the bytes in the SSE response (src/http/events-route.ts).
 */
import { eventsDropped } from "../../wire/events.ts";
import { formatSse } from "../../wire/sse.ts";
import type { LiveFanout } from "./live-fanout.ts";
import type { EventLog } from "./event-log.ts";
import { finalEventsResponse, type EventSockets } from "./event-sockets.ts";
import { ok, refuse, type SessionResult } from "../session-result.ts";

/** Browsers wait this long before reconnecting an EventSource. */
const CLIENT_RETRY_MS = 1_000;

type StreamParts = { log: EventLog; hub: LiveFanout; runs: { readonly isShutdown: boolean } };

export function openEventStream({ log, hub, runs }: StreamParts, afterSeq: number): SessionResult<ReadableStream<Uint8Array>> {
  // A shut-down session replays what a client has not seen yet, then says it is gone so clients stop.
  if (runs.isShutdown && afterSeq >= log.lastSeq) return refuse("shut_down", "Session is shut down; no further events");
  let chunks = [...replayHead(log, afterSeq)];
  let sent = afterSeq;
  let live: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // One log page per pull, as the reader takes them; the last page and the live subscription happen in one
  // synchronous block, so the client sees no gap and no duplicate.
  return ok(
    new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (!live) {
          const page = log.readAfter(sent);
          for (const row of page.events) chunks.push(formatSse({ id: row.seq, event: row.type, data: row.json }));
          sent = page.events.at(-1)?.seq ?? sent;
          if (page.more || runs.isShutdown) {
            controller.enqueue(encoder.encode(chunks.join("")));
            chunks = [];
            if (!page.more) controller.close();
            return;
          }
          live = hub.subscribe(chunks).getReader();
          chunks = [];
        }
        const next = await live.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel: (reason) => live?.cancel(reason),
    }),
  );
}

/**
 * The socket path (event-sockets.ts): the same replay, then live events through a hibernatable socket
 * (a 101 response), or for a shut-down session the replay alone as a finite SSE body.
 */
export function attachEventSocket(
  { log, hub, runs, sockets }: StreamParts & { sockets: EventSockets },
  afterSeq: number,
): SessionResult<Response> {
  const closed = runs.isShutdown;
  if (closed && afterSeq >= log.lastSeq) return refuse("shut_down", "Session is shut down; no further events");
  // Unflushed events are in the log this replay reads: they belong to the subscribers attached before.
  hub.flush();
  if (closed) return ok(finalEventsResponse(streamOf(replay(log, afterSeq))));
  // Page by page into the socket, in this one synchronous block (no gap before live events).
  return ok(sockets.attach(replay(log, afterSeq)));
}

/** The whole replay after `afterSeq`, a head and then one log page at a time. */
function* replay(log: EventLog, afterSeq: number): Generator<string> {
  yield replayHead(log, afterSeq).join("");
  yield* replayPages(log, afterSeq);
}

/** A finite body that reads the next part only when the reader wants more. */
function streamOf(parts: Iterator<string>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    pull: (controller) => {
      const next = parts.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
}

/** What a client that saw up to `afterSeq` gets first: the retry hint, and a trimmed-log notice if due. */
function replayHead(log: EventLog, afterSeq: number): string[] {
  const chunks: string[] = [`retry: ${CLIENT_RETRY_MS}\n\n`];
  const oldest = log.oldestSeq();
  if (afterSeq + 1 < oldest) {
    const notice = eventsDropped(log.sessionId, afterSeq, oldest, Date.now());
    chunks.push(formatSse({ event: notice.type, data: JSON.stringify(notice) }));
  }
  return chunks;
}

/** The events after `afterSeq` as formatted SSE text, one bounded log page at a time. */
function* replayPages(log: EventLog, afterSeq: number): Generator<string> {
  for (let sent = afterSeq, more = true; more; ) {
    const page = log.readAfter(sent);
    yield page.events.map((row) => formatSse({ id: row.seq, event: row.type, data: row.json })).join("");
    sent = page.events.at(-1)?.seq ?? sent;
    more = page.more;
  }
}

const encoder = new TextEncoder();
