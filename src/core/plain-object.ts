/**
 * The one "is this a JSON object?" check (not null, not an array): the shape tool arguments, schemas,
 * error bodies and API payloads must have. Dependency-free, so the browser's client bundle may use it.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
