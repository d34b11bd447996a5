/**
 * The body of a /chat answer: the session's own event stream, read from where it stood when the request
 * came in, translated into UI message stream chunks (`data: <json>` lines, then `data: [DONE]`).
 * For a new user message, events count from the moment the run took that message into its history
 * (its messageEnd) until the end of that run; for approval answers, until the end of the running run.
 * A run that stops to ask a human for approval ends the response (useChat sends the answer as a new request).
 * Without `awaiting`, the answer is the stream of a run already under way (a resume) from `events` on.
 * Each pull writes something before it returns (a chunk, a comment, the end): a pull that wrote nothing
 * would not be called again, and the response would hang (workerd cancels it as hung).
 * The session stays the source of truth: a client that goes away cancels only this view, never the run.
 */
import type { UserContent } from "../core/index.ts";
import type { WireEvent } from "../wire/events.ts";
import { formatSse, formatSseComment } from "../wire/sse.ts";
import { SseParser } from "../wire/sse-parser.ts";
import { UiMessageChunker, type UiMessageChunk } from "./ui-message-chunks.ts";

export const UI_MESSAGE_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  "x-vercel-ai-ui-message-stream": "v1",
} as const;

export type ChatView = {
  /** The session's event bytes after this seq (SSE, as GET …/events serves them). */
  events: ReadableStream<Uint8Array>;
  messageId: string;
  /** Set when waiting for a new user message: events before the run takes it in are not this answer's. */
  awaiting?: UserContent[];
  /** When continuing the client's last message: the tool calls it already shows. */
  knownToolCallIds?: string[];
};

const encoder = new TextEncoder();

export function uiMessageStream({ events, messageId, awaiting, knownToolCallIds }: ChatView): ReadableStream<Uint8Array> {
  const chunker = new UiMessageChunker(messageId, knownToolCallIds !== undefined, knownToolCallIds);
  const parser = new SseParser();
  const reader = events.getReader();
  const wanted = awaiting ? JSON.stringify(awaiting) : undefined;
  let started = wanted === undefined;
  const write = (controller: ReadableStreamDefaultController<Uint8Array>, chunks: UiMessageChunk[]) => {
    for (const chunk of chunks) controller.enqueue(encoder.encode(formatSse({ data: JSON.stringify(chunk) })));
  };
  const done = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    controller.enqueue(encoder.encode(formatSse({ data: "[DONE]" })));
    controller.close();
    void reader.cancel().catch(() => undefined);
  };

  return new ReadableStream<Uint8Array>({
    start(controller) {
      write(controller, chunker.start());
    },
    async pull(controller) {
      // Read until something was written: events that make no chunk (bookkeeping, another run's) are skipped.
      for (let wrote = false; !wrote; ) {
        const { value, done: ended } = await reader.read();
        if (ended) {
          // The session shut down (or the object restarted) before this run ended.
          write(controller, [
            { type: "error", errorText: "The session's event stream ended before the run finished" },
            { type: "finish", finishReason: "other" },
          ]);
          return done(controller);
        }
        for (const item of parser.feed(value)) {
          if (item.kind === "comment") {
            controller.enqueue(encoder.encode(formatSseComment(item.text)));
            wrote = true;
          }
          if (item.kind !== "message") continue;
          const event = JSON.parse(item.data) as WireEvent;
          // A trimmed-log notice cannot concern this answer: it reads from where the session stood just now.
          if (event.type === "eventsDropped") continue;
          if (!started) {
            started = event.type === "messageEnd" && event.message.role === "user" && JSON.stringify(event.message.content) === wanted;
            continue;
          }
          const chunks = chunker.translate(event);
          write(controller, chunks);
          wrote ||= chunks.length > 0;
          if (event.type === "runEnd") return done(controller);
          if (event.type === "toolApprovalRequired") {
            write(controller, chunker.pauseForApproval());
            return done(controller);
          }
        }
      }
    },
    async cancel() {
      await reader.cancel().catch(() => undefined);
    },
  });
}
