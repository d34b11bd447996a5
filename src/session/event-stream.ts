/**
 * Opens a session's SSE response: replays what the client missed (after Last-Event-ID, from the header or
 * `?lastEventId=`), then continues live. Replay and subscription happen in one synchronous block, so the
 * client sees no gap and no duplicate. A client asking for events already trimmed is told so first.
 */
import { formatSse, SSE_HEADERS } from "../wire/sse.ts";
import type { EventHub } from "./event-hub.ts";
import type { EventLog } from "./event-log.ts";

/** Browsers wait this long before reconnecting an EventSource. */
const CLIENT_RETRY_MS = 1_000;

export function parseLastEventId(request: Request): number | undefined {
  const raw = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("lastEventId");
  if (raw === null || raw === "") return undefined;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
}

export function openEventStream(request: Request, log: EventLog, hub: EventHub, closed: boolean): Response {
  const lastEventId = parseLastEventId(request);
  if (Number.isNaN(lastEventId)) {
    return Response.json({ error: { code: "bad_request", message: "Last-Event-ID must be a non-negative integer" } }, { status: 400 });
  }
  const after = lastEventId ?? 0;
  // A shut-down session replays what a client has not seen yet, then says it is gone so clients stop.
  if (closed && after >= log.lastSeq) {
    return Response.json({ error: { code: "gone", message: "Session is shut down; no further events" } }, { status: 410 });
  }
  const chunks: string[] = [`retry: ${CLIENT_RETRY_MS}\n\n`];
  const oldest = log.oldestSeq();
  if (after + 1 < oldest) {
    const data = JSON.stringify({ type: "error", code: "events_dropped", message: `Events ${after + 1}–${oldest - 1} are no longer retained; replay starts at ${oldest}`, oldestSeq: oldest });
    chunks.push(formatSse({ event: "error", data }));
  }
  for (const row of log.readAfter(after)) chunks.push(formatSse({ id: row.seq, event: row.type, data: row.json }));
  if (closed) {
    return new Response(chunks.join(""), { headers: SSE_HEADERS });
  }
  return new Response(hub.subscribe(chunks, request.signal), { headers: SSE_HEADERS });
}
