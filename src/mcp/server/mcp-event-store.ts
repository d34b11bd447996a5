/**
 * The replay buffer of one /mcp session (the SDK's EventStore): every message the server sends on an SSE
 * stream is kept so a client that lost the stream can resume with Last-Event-ID (Streamable HTTP
 * resumability). Held in memory beside the session (mcp-sessions.ts), bounded by count and by bytes:
 * the oldest events go first; a Last-Event-ID older than what is kept replays nothing.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Enough for the messages of the calls in flight; a session is one client's, not a log. */
export const MAX_REPLAY_EVENTS = 500;
/** A large tool result can be hundreds of KB; a few of them, not hundreds, per session. */
export const MAX_REPLAY_BYTES = 2 * 1024 * 1024;

type Stored = { id: string; streamId: string; message: JSONRPCMessage; bytes: number };

export class BoundedEventStore implements EventStore {
  private readonly events: Stored[] = [];
  private bytes = 0;
  private next = 0;

  constructor(
    private readonly maxEvents = MAX_REPLAY_EVENTS,
    private readonly maxBytes = MAX_REPLAY_BYTES,
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // Ids carry the stream, so a resume names it even after its first events were evicted.
    const id = `${streamId}_${++this.next}`;
    const bytes = JSON.stringify(message).length;
    this.events.push({ id, streamId, message, bytes });
    this.bytes += bytes;
    while (this.events.length > this.maxEvents || (this.bytes > this.maxBytes && this.events.length > 1)) {
      this.bytes -= this.events.shift()!.bytes;
    }
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return streamOf(eventId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = streamOf(lastEventId) ?? "";
    const after = sequenceOf(lastEventId);
    for (const event of [...this.events]) {
      if (event.streamId === streamId && sequenceOf(event.id) > after) await send(event.id, event.message);
    }
    return streamId;
  }

  /** Events kept now (for tests and the bound's check). */
  get size(): { events: number; bytes: number } {
    return { events: this.events.length, bytes: this.bytes };
  }
}

function streamOf(eventId: string): string | undefined {
  const at = eventId.lastIndexOf("_");
  return at > 0 ? eventId.slice(0, at) : undefined;
}

function sequenceOf(eventId: string): number {
  const n = Number(eventId.slice(eventId.lastIndexOf("_") + 1));
  return Number.isFinite(n) ? n : Number.POSITIVE_INFINITY;
}
