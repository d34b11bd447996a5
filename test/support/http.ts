/**
 * The tests' one way to build a raw API request: `key` becomes the bearer header, `json` the body with its
 * content type. Used by the workerd helpers (SELF.fetch) and the end-to-end helpers (fetch against
 * wrangler dev) for what the client SDK cannot express: malformed input and exact status checks.
 */
export type ApiInit = RequestInit & { key?: string; json?: unknown };

export function apiRequestInit(init: ApiInit = {}): RequestInit {
  const { key, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key) headers.set("authorization", `Bearer ${key}`);
  let body = rest.body;
  if (json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(json);
  }
  return { ...rest, headers, body };
}
