/**
 * A session's SSE stream as an async iterator that survives drops: it reconnects by itself with
 * Last-Event-ID (waiting the server's `retry:`, backing off while attempts fail) and drops anything at or
 * below the highest seq already yielded, so a caller sees every event exactly once, in seq order.
 * Called by SessionHandle.events(). Permanent refusals (401/403/404/410, bad request) end it by throwing
 * ApiClientError; the caller's signal or `break` ends it cleanly and closes the connection.
 */
import { ApiClientError, errorFromResponse, isPermanentStatus } from "./errors.ts";
import { SseParser, type SseMessage } from "../wire/sse-parser.ts";
import type { ConnectionState, EventsDroppedEvent, EventStreamOptions, SessionStreamEvent, StampedEvent } from "./types.ts";

/** Used until the server's first `retry:` field arrives (it sends 1000). */
const DEFAULT_RETRY_MS = 1_000;
/** Backoff cap: a long outage costs one request per half minute, not a busy loop. */
const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;
/** The server pings every 15 s; three missed pings mean the connection is dead without having closed. */
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;
/** A connection open this long counts as healthy even without events, so idle cuts do not grow the backoff. */
const HEALTHY_CONNECTION_MS = 10_000;

export type EventStreamTarget = {
  url: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
};

export async function* streamSessionEvents(
  target: EventStreamTarget,
  options: EventStreamOptions = {},
): AsyncGenerator<SessionStreamEvent, void, undefined> {
  const { signal } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const maxDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const notify = (state: ConnectionState, detail?: { delayMs?: number; error?: unknown }) => options.onConnectionChange?.(state, detail);
  let lastSeq = options.lastEventId ?? 0;
  let sendLastEventId = options.lastEventId !== undefined;
  let retryMs = DEFAULT_RETRY_MS;
  let failures = 0;
  let attempt = 0;

  try {
    while (!signal?.aborted) {
      if (attempt++ === 0) notify("connecting");
      const connection = new AbortController();
      const onAbort = () => connection.abort(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      let healthy = false;
      let retryAfterMs = 0;
      try {
        const headers: Record<string, string> = { ...target.headers, accept: "text/event-stream" };
        if (sendLastEventId) headers["last-event-id"] = String(lastSeq);
        // undefined: the server is unreachable (down, restarting, offline); retried below with backoff.
        const fetchImpl = target.fetch; // called unbound: a browser's fetch rejects any other `this`
        const response = await fetchImpl(target.url, { headers, signal: connection.signal }).catch(() => undefined);
        if (signal?.aborted) return;
        if (response === undefined) {
          // Counted as a failed attempt below.
        } else if (!response.ok) {
          const error = await errorFromResponse(response);
          if (isPermanentStatus(response.status)) throw error;
          retryAfterMs = (error.retryAfterSeconds ?? 0) * 1000;
        } else if (!isEventStream(response)) {
          await response.body?.cancel().catch(() => undefined);
          throw new ApiClientError(
            response.status,
            "bad_response",
            `Expected text/event-stream, got ${response.headers.get("content-type") ?? "no content type"}`,
          );
        } else {
          notify("open");
          const openedAt = Date.now();
          const parser = new SseParser();
          const reader = response.body!.getReader();
          try {
            for (;;) {
              const chunk = await readWithin(reader, idleTimeoutMs, connection);
              if (chunk === undefined) break;
              for (const item of parser.feed(chunk)) {
                if (item.kind === "retry") retryMs = item.ms;
                if (item.kind !== "message") continue;
                const event = toStreamEvent(item);
                if (!event) continue;
                if (event.type === "eventsDropped") {
                  lastSeq = Math.max(lastSeq, event.oldestSeq - 1);
                } else if ((event as { unstored?: boolean }).unstored === true) {
                  // Storage failed, so this event has no seq of its own (nor a replay): yielded once, as it comes.
                } else if (event.seq > lastSeq) {
                  lastSeq = event.seq;
                  healthy = true;
                } else {
                  continue; // already yielded on an earlier connection
                }
                sendLastEventId = true;
                yield event;
              }
            }
          } catch {
            if (signal?.aborted) return;
            // The connection broke (network drop, idle timeout): reconnect below.
          } finally {
            reader.cancel().catch(() => undefined);
          }
          if (Date.now() - openedAt >= HEALTHY_CONNECTION_MS) healthy = true;
        }
      } finally {
        signal?.removeEventListener("abort", onAbort);
        connection.abort();
      }
      failures = healthy ? 0 : failures + 1;
      await waitBeforeRetry(retryAfterMs);
    }
  } finally {
    notify("closed");
  }

  async function waitBeforeRetry(atLeastMs = 0): Promise<void> {
    const backoff = failures <= 1 ? retryMs : Math.min(maxDelayMs, retryMs * 2 ** (failures - 1));
    // Jitter only once attempts fail, so clients cut off together do not all return in the same instant.
    const jitter = failures > 1 ? Math.random() * 0.25 * backoff : 0;
    const delayMs = Math.max(atLeastMs, Math.min(maxDelayMs, backoff + jitter));
    notify("reconnecting", { delayMs });
    await sleep(delayMs, signal);
  }
}

function isEventStream(response: Response): boolean {
  return /^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
}

/** Reads one chunk, or undefined at the end of the stream; aborts the connection when nothing arrives in time. */
async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  timeoutMs: number,
  connection: AbortController,
): Promise<Uint8Array | undefined> {
  const timer = setTimeout(() => {
    connection.abort(new Error(`No data for ${timeoutMs} ms`));
    reader.cancel().catch(() => undefined);
  }, timeoutMs);
  try {
    const { done, value } = await reader.read();
    return done ? undefined : value;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The JSON payload as a typed event: an `eventsDropped` notice (it has no seq), or a stamped event. Anything
 * else (no seq, not an object) is not ours and is skipped. Event types newer than this SDK pass through.
 */
function toStreamEvent(message: SseMessage): SessionStreamEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return undefined;
  }
  if (typeof data !== "object" || data === null) return undefined;
  const record = data as Record<string, unknown>;
  if (record.type === "eventsDropped") return typeof record.oldestSeq === "number" ? (data as EventsDroppedEvent) : undefined;
  if (typeof record.seq !== "number" || typeof record.type !== "string") return undefined;
  return data as StampedEvent;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
