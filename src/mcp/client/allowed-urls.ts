/**
 * `MCP_ALLOWED_URLS`: the URL prefixes a session may attach as its own MCP servers. Each prefix and each
 * candidate are parsed as URLs and compared part by part (scheme, host and port exactly, then the path on
 * segment boundaries), so `https://a.example/` never admits `https://a.example.evil/` or `…@evil`.
 * Called by the session when a client adds a server. Unset or blank: nothing is allowed.
 */
import { readSetting } from "../../config.ts";

export type AllowedUrlPrefix = { protocol: string; host: string; path: string };

/** The prefixes of the var; entries that are not http(s) URLs, or carry credentials, are left out. */
export function readAllowedUrls(env: { MCP_ALLOWED_URLS?: string | undefined }): AllowedUrlPrefix[] {
  return readSetting(env, "MCP_ALLOWED_URLS").flatMap((entry) => {
    const url = parseHttpUrl(entry);
    return url ? [{ protocol: url.protocol, host: url.host, path: url.pathname }] : [];
  });
}

/** True when `candidate` parses as an http(s) URL without credentials and lies under one of the prefixes. */
export function isAllowedMcpUrl(candidate: string, prefixes: readonly AllowedUrlPrefix[]): boolean {
  const url = parseHttpUrl(candidate);
  if (!url) return false;
  return prefixes.some((p) => p.protocol === url.protocol && p.host === url.host && underPath(url.pathname, p.path));
}

/** `/a/` admits `/a/…`; `/a` admits `/a` and `/a/…` but not `/ab`. */
function underPath(path: string, prefix: string): boolean {
  if (prefix.endsWith("/")) return path.startsWith(prefix);
  return path === prefix || path.startsWith(`${prefix}/`);
}

function parseHttpUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (url.username !== "" || url.password !== "") return undefined;
  return url;
}
