/**
 * The Server-Sent Events wire format as pure functions (tested on exact strings), shared by the session,
 * which writes events, and the router, which sets the headers. Multi-line data is split into several
 * `data:` lines, as the SSE format requires.
 */
/** One event to write: what formatSse turns into `id:`, `event:`, `retry:` and `data:` lines. */
export type SseFields = { id?: string | number; event?: string; data: string; retry?: number };

export function formatSse(message: SseFields): string {
  let out = "";
  if (message.id !== undefined) out += `id: ${message.id}\n`;
  if (message.event) out += `event: ${message.event}\n`;
  if (message.retry !== undefined) out += `retry: ${message.retry}\n`;
  for (const line of message.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

export const formatSseComment = (text: string): string => `: ${text}\n\n`;

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
} as const;
