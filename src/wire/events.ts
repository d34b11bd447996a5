/**
 * Every event a session's SSE stream can carry, as one union tagged by `type`: the core's AgentEvent
 * union stamped by the session (`seq`, `sessionId`, `runId?`, `ts`), derived here so an event type added
 * to src/core/events.ts, or merged into it by a host feature, flows to the wire and to every consumer by
 * itself, plus `eventsDropped`, the notice that the log no longer holds what a reconnecting client asked
 * for. Written by the session's event log and feed, read by the client SDK; consumers switch over `type`
 * exhaustively.
 */
import type { AgentEvent } from "../core/index.ts";
// The host features' events join AgentEvent only where their modules are loaded: here, so that every
// reader of this union (the Worker, the client SDK, the page) has them all.
import type {} from "../host-vocabulary.ts";

/** The event union with every host feature's events: what a reader that switches over it imports. */
export type { AgentEvent, AgentEventType } from "../core/index.ts";

/** What the session adds to each event when it stores it; `seq` is also the SSE `id`. */
export type EventStamp = { seq: number; sessionId: string; runId?: string; ts: number };

/** One core event as stored in the log and sent over SSE (distributes over the union). */
export type Stamped<E> = E extends unknown ? E & EventStamp : never;

export type StampedEvent = Stamped<AgentEvent>;

/**
 * Sent first on a connection that asked for events already trimmed from the log. It is not in the log:
 * no `seq` and no SSE `id`, so it never moves Last-Event-ID. Replay continues at `oldestSeq`; a client
 * rebuilding state should reload the snapshot.
 */
export type EventsDroppedEvent = { type: "eventsDropped"; sessionId: string; ts: number; oldestSeq: number; message: string };

/** Everything the event stream carries. */
export type WireEvent = StampedEvent | EventsDroppedEvent;

export type WireEventType = WireEvent["type"];

export function eventsDropped(sessionId: string, afterSeq: number, oldestSeq: number, ts: number): EventsDroppedEvent {
  return {
    type: "eventsDropped",
    sessionId,
    ts,
    oldestSeq,
    message: `Events ${afterSeq + 1}–${oldestSeq - 1} are no longer retained; replay starts at ${oldestSeq}`,
  };
}
