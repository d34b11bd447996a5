/**
 * SEP-2243 (revision 2026-07-28): a tool may mark some of its parameters with `x-mcp-header: "<Name>"`,
 * and a client then repeats each such argument in an `Mcp-Param-<Name>` header, so what routes or
 * filters by header (a gateway, a rate limit per region) sees it without reading the body. A tool whose
 * marks are malformed (an empty or non-token name, a name used twice in any case, a mark on anything but
 * a string, integer or boolean) is left out of the list: its calls could never carry valid headers.
 */

/** Per tool: parameter name to header name (without the `Mcp-Param-` prefix). */
export type ParamHeaders = ReadonlyMap<string, string>;

/** RFC 9110 token characters: what a header's name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MIRRORED_TYPES = new Set(["string", "integer", "boolean"]);

/** The tool's marked parameters, or a reason to leave the tool out. */
export function paramHeadersOf(inputSchema: unknown): { ok: true; headers: ParamHeaders } | { ok: false; reason: string } {
  const headers = new Map<string, string>();
  const seen = new Set<string>();
  const properties = (inputSchema as { properties?: unknown } | undefined)?.properties;
  if (!properties || typeof properties !== "object") return { ok: true, headers };
  for (const [param, schema] of Object.entries(properties as Record<string, unknown>)) {
    if (!schema || typeof schema !== "object" || !("x-mcp-header" in schema)) continue;
    const name = (schema as Record<string, unknown>)["x-mcp-header"];
    if (typeof name !== "string" || !TOKEN.test(name)) return { ok: false, reason: `parameter "${param}" has an invalid x-mcp-header` };
    const type = (schema as { type?: unknown }).type;
    if (typeof type !== "string" || !MIRRORED_TYPES.has(type))
      return { ok: false, reason: `parameter "${param}" of type ${JSON.stringify(type)} cannot be an x-mcp-header` };
    if (seen.has(name.toLowerCase())) return { ok: false, reason: `x-mcp-header "${name}" is used twice` };
    seen.add(name.toLowerCase());
    headers.set(param, name);
  }
  return { ok: true, headers };
}

/** The Mcp-Param headers of one call: each marked argument present (null and absent ones are left out). */
export function paramHeaderValues(headers: ParamHeaders, args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [param, name] of headers) {
    const value = args[param];
    if (value === null || value === undefined) continue;
    out[`mcp-param-${name.toLowerCase()}`] = encode(value);
  }
  return out;
}

/**
 * A value as a header carries it: booleans and numbers as JSON writes them, a string as is when it is
 * printable ASCII without surrounding whitespace, else `=?base64?<UTF-8 in Base64>?=` (HTTP would drop
 * or mangle the rest).
 */
function encode(value: unknown): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return String(value);
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (/^[\x20-\x7e]*$/.test(text) && text === text.trim()) return text;
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `=?base64?${btoa(binary)}?=`;
}
