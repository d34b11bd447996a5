/**
 * The server's own record of a session's events, read with the client SDK from Node: every event from
 * seq 1 up to the snapshot's lastEventSeq. Browser tests compare what the page applied against it.
 */
import { createClient } from "../../../src/client/index.ts";
import type { LoggedEvent } from "./chat-page.ts";

export async function readServerEvents(baseUrl: string, session: { id: string; key: string }): Promise<LoggedEvent[]> {
  const handle = createClient({ baseUrl }).session(session.id, session.key);
  const { lastEventSeq } = await handle.snapshot();
  const events: LoggedEvent[] = [];
  if (lastEventSeq === 0) return events;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    for await (const event of handle.events({ signal: controller.signal })) {
      if (event.type === "eventsDropped") throw new Error("the server trimmed events this test needs");
      events.push({ seq: event.seq, type: event.type });
      if (event.seq >= lastEventSeq) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return events;
}

/** Seqs strictly increasing by one: nothing missing, nothing twice. */
export function isContiguous(events: readonly LoggedEvent[]): boolean {
  return events.every((event, i) => i === 0 || event.seq === events[i - 1]!.seq + 1);
}
