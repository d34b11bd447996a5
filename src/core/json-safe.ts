/**
 * Making any value storable: JSON-safe (no BigInt, cycle, function, symbol or non-finite number left)
 * and bounded in size, with notes saying what was changed or cut. Tools, hooks and models return odd
 * values; the loop and the host's storage call these so that storing a value never throws and no row
 * outgrows what storage accepts (Durable Object SQLite rows hold at most 2 MB).
 */
import { isPlainObject } from "./plain-object.ts";

export type JsonSafe = { value: unknown; notes: string[] };

/** Nesting deeper than this is cut: real tool details are shallow, a deep value is almost surely a bug. */
const MAX_DEPTH = 64;
/** Notes kept per value, so a million BigInts do not make a million notes. */
const MAX_NOTES = 8;

/** A JSON-safe copy of `value` (what `JSON.stringify` would keep, minus what would make it throw). */
export function toJsonSafe(value: unknown, path = "value"): JsonSafe {
  const notes: string[] = [];
  const note = (text: string) => {
    if (notes.length < MAX_NOTES) notes.push(text);
  };
  const ancestors = new Set<object>();
  const walk = (v: unknown, at: string, depth: number): unknown => {
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        if (Number.isFinite(v)) return v;
        note(`${at}: ${String(v)} stored as null`);
        return null;
      case "bigint":
        note(`${at}: BigInt stored as a string`);
        return v.toString();
      case "undefined":
        return undefined;
      case "function":
      case "symbol":
        note(`${at}: ${typeof v} left out`);
        return undefined;
      case "object":
        break;
    }
    if (v === null) return null;
    if (ancestors.has(v)) {
      note(`${at}: circular reference left out`);
      return "[Circular]";
    }
    if (depth >= MAX_DEPTH) {
      note(`${at}: nested deeper than ${MAX_DEPTH} levels, left out`);
      return "[too deep]";
    }
    if (v instanceof Error) return { name: v.name, message: v.message };
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      try {
        return walk(toJSON.call(v), at, depth + 1);
      } catch {
        note(`${at}: toJSON threw, left out`);
        return undefined;
      }
    }
    ancestors.add(v);
    try {
      if (Array.isArray(v)) return v.map((item, i) => walk(item, `${at}[${i}]`, depth + 1) ?? null);
      if (v instanceof Map) return walk(Object.fromEntries(v), at, depth);
      if (v instanceof Set) return walk([...v], at, depth);
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v)) {
        const safe = walk(item, `${at}.${key}`, depth + 1);
        if (safe !== undefined) out[key] = safe;
      }
      return out;
    } finally {
      ancestors.delete(v);
    }
  };
  return { value: walk(value, path, 0), notes };
}

/** JSON text of `value`, never throwing (what cannot be represented is replaced, see toJsonSafe). */
export function stringifySafe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return JSON.stringify(toJsonSafe(value).value) ?? "null";
  }
}

/**
 * A JSON-safe object of at most `maxChars` characters of JSON. Over the limit it is replaced by a note
 * and the start of its JSON text, so a reader sees what it was. Notes go under `storageNotes`.
 */
export function boundObject(value: unknown, maxChars: number, path: string): Record<string, unknown> {
  const safe = toJsonSafe(value, path);
  const object = isPlainObject(safe.value) ? safe.value : safe.value === undefined ? {} : { value: safe.value };
  const notes = [...safe.notes];
  const json = JSON.stringify(object);
  if (json.length > maxChars) {
    const preview = json.slice(0, Math.min(2_000, Math.floor(maxChars / 2)));
    notes.push(`${path} was ${json.length} characters of JSON, over the ${maxChars} limit: replaced by a preview`);
    return { preview, storageNotes: notes };
  }
  return notes.length > 0 ? { ...object, storageNotes: notes } : object;
}

/** A JSON-safe value of at most `maxChars` characters of JSON (a preview string when over). */
export function boundValue(value: unknown, maxChars: number, path: string): unknown {
  const safe = toJsonSafe(value, path).value;
  const json = JSON.stringify(safe) ?? "null";
  if (json.length <= maxChars) return safe;
  return `[${path} cut: ${json.length} characters of JSON, over the ${maxChars} limit] ${json.slice(0, Math.min(2_000, Math.floor(maxChars / 2)))}`;
}

/**
 * Storage rows hold at most 2 MB: JSON text is kept under this many UTF-8 bytes, leaving room for the
 * row's other columns and SQLite's own overhead.
 */
export const MAX_ROW_BYTES = 1_800_000;

/**
 * JSON text of `value` that fits one storage row: JSON-safe, and when too large, every long string is cut
 * (halving the cut length until it fits) with a `storageNote` on the top-level object saying so.
 * The shape stays (type fields, ids), so readers of the row still recognise it. Never throws.
 */
export function fitJson(value: unknown, maxBytes: number = MAX_ROW_BYTES): string {
  const json = stringifySafe(value);
  if (fits(json, maxBytes)) return json;
  const safe = toJsonSafe(value).value;
  for (let keep = Math.floor(maxBytes / 8); keep >= 64; keep = Math.floor(keep / 2)) {
    let cut = 0;
    const shrink = (v: unknown): unknown => {
      if (typeof v === "string") {
        if (v.length <= keep) return v;
        cut += v.length - keep;
        return `${v.slice(0, keep)} [cut: ${v.length - keep} more characters]`;
      }
      if (Array.isArray(v)) return v.map(shrink);
      if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, shrink(item)]));
      return v;
    };
    const shrunk = shrink(safe);
    const noted = isPlainObject(shrunk)
      ? { ...shrunk, storageNote: `too large to store whole: ${cut} characters cut from long strings` }
      : shrunk;
    const text = JSON.stringify(noted);
    if (fits(text, maxBytes)) return text;
  }
  return JSON.stringify({ storageNote: `a value of ${json.length} characters of JSON was too large to store` });
}

/** UTF-8 size check without encoding when the text is clearly small (at most 3 bytes per UTF-16 unit). */
function fits(json: string, maxBytes: number): boolean {
  if (json.length * 3 <= maxBytes) return true;
  if (json.length > maxBytes) return false;
  return new TextEncoder().encode(json).length <= maxBytes;
}
