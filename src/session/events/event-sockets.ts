/**
 * Live events for subscribers attached by WebSocket: the Worker holds the browser's SSE response and
 * follows the session through one socket per stream (src/http/event-bridge.ts). Sockets are accepted
 * through the Hibernation API (ctx.acceptWebSocket), so an object whose only connections are idle
 * subscribers holds no request, timer or stream open and can be evicted; the sockets stay connected and
 * ctx.getWebSockets() finds them again when the object wakes for the next run. Heartbeats are the
 * Worker's job. Invariant: replay and attach happen in one synchronous block (no gap, no duplicate).
 */
import { SSE_HEADERS } from "../../wire/sse.ts";

/** How the Worker's bridge names the caller's key and the last seq it saw when it asks for a socket. */
export const EVENT_SOCKET_HEADERS = { key: "x-session-key", user: "x-session-user", afterSeq: "x-after-seq" } as const;
/** Tag of event subscriber sockets (other sockets, if any ever exist, are not sent events). */
export const EVENT_SOCKET_TAG = "events";
/** Largest message sent to one socket: a long replay goes out in several messages, in order. */
const MAX_SOCKET_MESSAGE_CHARS = 256 * 1024;
/** Close code sent when the session shuts down: the stream ends after what the socket already got. */
export const SHUTDOWN_CLOSE_CODE = 1000;

export class EventSockets {
  /**
   * False only once a look found no socket and none was attached since: while nobody listens, publishing
   * costs no runtime call. Sockets can only appear through `attach`, so this never hides a subscriber.
   */
  private maybeAttached = true;

  constructor(private readonly ctx: DurableObjectState) {}

  get active(): boolean {
    return this.maybeAttached;
  }

  /** Accepts a subscriber socket and sends it the replay's parts first; returns the 101 response for the Worker. */
  attach(replay: Iterable<string>): Response {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server, [EVENT_SOCKET_TAG]);
    this.maybeAttached = true;
    for (const part of replay) sendInParts(server, part);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Sends one burst of formatted SSE text to every attached subscriber. */
  send(chunk: string): void {
    if (!this.maybeAttached) return;
    const sockets = this.ctx.getWebSockets(EVENT_SOCKET_TAG);
    if (sockets.length === 0) {
      this.maybeAttached = false;
      return;
    }
    for (const socket of sockets) sendInParts(socket, chunk);
  }

  /** Ends every subscriber's stream (after `finalChunk`, if any), e.g. when the session shuts down. */
  closeAll(finalChunk?: string): void {
    for (const socket of this.ctx.getWebSockets(EVENT_SOCKET_TAG)) {
      if (finalChunk) sendInParts(socket, finalChunk);
      try {
        socket.close(SHUTDOWN_CLOSE_CODE, "session shut down");
      } catch {
        // Already closing: nothing to end.
      }
    }
    this.maybeAttached = false;
  }
}

/** Completes a subscriber's close handshake (1005/1006 say no code was sent: answer with a normal close). */
export function answerClose(socket: WebSocket, code: number): void {
  try {
    socket.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
  } catch {
    // Already closed.
  }
}

/** A replay the Worker passes through as is (a shut-down session's last events), ending the stream. */
export function finalEventsResponse(body: ReadableStream<Uint8Array>): Response {
  return new Response(body, { headers: SSE_HEADERS });
}

function sendInParts(socket: WebSocket, text: string): void {
  try {
    for (let at = 0; at < text.length; ) {
      let end = Math.min(text.length, at + MAX_SOCKET_MESSAGE_CHARS);
      // Never between the two halves of a surrogate pair: each message must be valid text on its own.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      socket.send(text.slice(at, end));
      at = end;
    }
  } catch {
    // The subscriber went away (its close event follows); the log keeps everything for its reconnect.
  }
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
