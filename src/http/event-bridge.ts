/**
 * The Worker's side of a session's event stream: it holds the browser's SSE response and follows the
 * session's Durable Object through one hibernatable WebSocket (src/session/events/event-sockets.ts), writing what
 * arrives to the response and sending the heartbeats itself. So an idle stream keeps no request, timer or
 * stream open in the object, which can sleep; the Worker waits on I/O and uses no CPU in between.
 * Invariants: bytes reach the browser in the order the object sent them; a reader that falls behind the
 * live-stream bound, or leaves, ends both sides (it reconnects with Last-Event-ID and replays from the log).
 */
import { EVENT_SOCKET_HEADERS } from "../session/events/event-sockets.ts";
import type { Caller } from "../session/session-access.ts";
import type { SessionFailure } from "../session/session-result.ts";
import { createLiveStream, HEARTBEAT_MS } from "../wire/live-stream.ts";
import { SSE_HEADERS } from "../wire/sse.ts";
import { settle } from "./failure-status.ts";

type SessionStub = { fetch(request: Request): Promise<Response> };

/** Opens the socket (the object authorizes and replays) and answers with the live SSE response. */
export async function bridgeEvents(stub: SessionStub, caller: Caller, afterSeq: number): Promise<Response> {
  const headers = new Headers({ upgrade: "websocket", [EVENT_SOCKET_HEADERS.afterSeq]: String(afterSeq) });
  if (typeof caller === "object") headers.set(EVENT_SOCKET_HEADERS.user, caller.userId);
  else if (caller) headers.set(EVENT_SOCKET_HEADERS.key, caller);
  const answer = await stub.fetch(new Request("https://session/events", { headers }));
  const socket = answer.webSocket;
  if (!socket) {
    // A shut-down session's last events come as a finite body; anything else is a refusal to map.
    if (answer.headers.get("content-type")?.startsWith("text/event-stream")) return new Response(answer.body, { headers: SSE_HEADERS });
    settle((await answer.json()) as SessionFailure);
    throw new Error("unreachable: settle throws on a failure");
  }
  socket.accept();
  return new Response(pipeSocketToSse(socket), { headers: SSE_HEADERS });
}

/** The SSE body fed by an accepted socket, with heartbeats every `heartbeatMs` (exported for tests). */
export function pipeSocketToSse(socket: WebSocket, heartbeatMs = HEARTBEAT_MS): ReadableStream<Uint8Array> {
  const stream = createLiveStream(() => {
    try {
      socket.close(1000, "stream ended");
    } catch {
      // The object closed it first.
    }
  }, heartbeatMs);
  socket.addEventListener("message", (event) => stream.write(typeof event.data === "string" ? event.data : new Uint8Array(event.data)));
  socket.addEventListener("close", () => stream.end());
  socket.addEventListener("error", () => stream.end());
  return stream.readable;
}
