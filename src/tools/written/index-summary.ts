/**
 * The compact copy of a written tool's index row that rides in the KV key's metadata, so one `list`
 * call reads up to a page of rows (listings, session loads) instead of one `get` per row. Written by
 * every writer of a row (writeTool, the operator's reject, the redeploy script); read by tool-index.ts.
 * Invariants: at most MAX_METADATA_BYTES of ASCII JSON (KV allows 1024; it travels in a header): long
 * text (description, error) is cut with "...".
 */
import type { WrittenToolEntry, WrittenToolStatus } from "./spec.ts";

/** What a listing shows of a row: the row without its R2 keys; description and error may be cut. */
export type WrittenToolSummary = Omit<WrittenToolEntry, "sourceKey" | "specKey">;

/** KV allows 1024 bytes of metadata per key; a margin for the JSON framing of future fields. */
export const MAX_METADATA_BYTES = 1_000;

type Metadata = {
  v: number;
  s: WrittenToolStatus;
  h: string;
  w: string;
  l: string;
  d: string;
  a?: string;
  t?: string;
  e?: string;
  r?: string;
  p?: string;
};

const encoder = new TextEncoder();
const bytes = (value: unknown) => encoder.encode(JSON.stringify(value)).length;

/**
 * `text` as ASCII (metadata travels in an HTTP header): `%` and non-ASCII characters percent-encoded,
 * cut to at most `max` bytes of serialized JSON with "..." when cut. Read back with `fromAscii`.
 */
function toAscii(text: string, max: number): string {
  let out = "";
  let cost = 0;
  for (const char of text) {
    const piece = /^[\x20-\x7e]$/.test(char) && char !== "%" ? char : encodeURIComponent(char);
    const pieceCost = JSON.stringify(piece).length - 2; // a quote or backslash is escaped in the JSON
    if (cost + pieceCost > max - 3) return `${out}...`;
    out += piece;
    cost += pieceCost;
  }
  return out;
}

function fromAscii(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function indexMetadata(entry: WrittenToolEntry): Metadata {
  const m: Metadata = { v: entry.version, s: entry.status, h: entry.hash, w: entry.writtenAt, l: toAscii(entry.label, 300), d: "" };
  if (entry.author.sessionId) m.a = entry.author.sessionId.slice(0, 100);
  if (entry.author.toolCallId) m.t = entry.author.toolCallId.slice(0, 100);
  if (entry.rejectedAt) m.r = entry.rejectedAt.slice(0, 40);
  if (entry.deployedAt) m.p = entry.deployedAt.slice(0, 40);
  // What is left is shared by the two long texts: the error first (it says why), then the description.
  if (entry.error) m.e = toAscii(entry.error, Math.floor(Math.max(40, MAX_METADATA_BYTES - bytes(m) - 60) / 2));
  m.d = toAscii(entry.description, MAX_METADATA_BYTES - bytes(m) - 8);
  return m;
}

/** The summary a key's metadata holds, or undefined when it holds none (a row from an older writer). */
export function summaryFromMetadata(name: string, metadata: unknown): WrittenToolSummary | undefined {
  const m = metadata as Partial<Metadata> | null;
  if (!m || typeof m !== "object") return undefined;
  if (typeof m.v !== "number" || !Number.isInteger(m.v) || m.v < 1) return undefined;
  if (m.s !== "pending" && m.s !== "rejected" && m.s !== "deployed") return undefined;
  if (typeof m.h !== "string" || typeof m.w !== "string" || typeof m.l !== "string" || typeof m.d !== "string") return undefined;
  const summary: WrittenToolSummary = {
    name,
    version: m.v,
    status: m.s,
    hash: m.h,
    writtenAt: m.w,
    label: fromAscii(m.l),
    description: fromAscii(m.d),
    author: { ...(typeof m.a === "string" ? { sessionId: m.a } : {}), ...(typeof m.t === "string" ? { toolCallId: m.t } : {}) },
  };
  if (typeof m.e === "string") summary.error = fromAscii(m.e);
  if (typeof m.r === "string") summary.rejectedAt = m.r;
  if (typeof m.p === "string") summary.deployedAt = m.p;
  return summary;
}
