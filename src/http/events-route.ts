/**
 * GET /v1/sessions/:id/events: the router validates Last-Event-ID (header, or `?lastEventId=` where an
 * EventSource cannot send headers) and builds the SSE response in the Worker, so refusals go through the
 * app's one onError like every other route. The bytes come from the session's Durable Object: for the
 * events route through a hibernatable socket the Worker follows (event-bridge.ts), so an idle stream lets
 * the object sleep; a stream of one request's run (e.g. /chat) may take them over RPC (openEvents).
 */
import { ApiError } from "./errors.ts";

/** The seq after which to stream: 0 when the client names none; a 400 when what it names is not a seq. */
export function parseLastEventId(request: Request): number {
  const raw = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("lastEventId");
  if (raw === null || raw === "") return 0;
  if (!/^\d{1,15}$/.test(raw)) throw new ApiError(400, "bad_request", "Last-Event-ID must be a non-negative integer");
  return Number(raw);
}
