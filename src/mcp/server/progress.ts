/**
 * A tool's partial result as an MCP progress notification's fields. A partial result that carries its
 * own numeric `progress` (and `total`, `message`) is reported as the tool counts; anything else counts
 * 1, 2, 3… with the partial result as the message. Used by the /mcp server (mcp-server.ts). Pure.
 */
import { isPlainObject } from "../../core/index.ts";

/** Progress messages carry a partial result as text, cut to this length. */
const MAX_PROGRESS_MESSAGE_CHARS = 2_000;

export type ProgressFields = { progress: number; total?: number; message?: string };

export function progressOf(partial: unknown, count: number): ProgressFields {
  if (isPlainObject(partial) && isCount(partial.progress)) {
    const fields: ProgressFields = { progress: partial.progress };
    if (isCount(partial.total)) fields.total = partial.total;
    if (typeof partial.message === "string") fields.message = partial.message.slice(0, MAX_PROGRESS_MESSAGE_CHARS);
    return fields;
  }
  const message = (typeof partial === "string" ? partial : (JSON.stringify(partial) ?? "")).slice(0, MAX_PROGRESS_MESSAGE_CHARS);
  return { progress: count, message };
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
