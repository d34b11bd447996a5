/**
 * `MCP_ALLOWED_URLS`: the URL prefixes a session may attach as its own MCP servers. Each prefix and each
 * candidate are parsed as URLs and compared part by part (scheme, host and port exactly, then the path on
 * segment boundaries), so `https://a.example/` never admits `https://a.example.evil/` or `…@evil`. An entry
 * may name any port with `:*` right after its host (`http://localhost:*` followed by a path), for tool
 * servers a deployer starts on ports it cannot know beforehand; scheme, host and path are still matched
 * exactly, and a deployment whose entries name no `:*` matches ports exactly as before. Called by the
 * session when a client adds a server. Unset or blank: nothing is allowed.
 */
import { readSetting } from "../../config.ts";

/** `host` is the host with its port; with `anyPort`, `host` is the hostname alone and any port matches. */
export type AllowedUrlPrefix = { protocol: string; host: string; path: string; anyPort?: true };

/** `scheme://host:*` then the rest: the one place a port pattern may stand. */
const ANY_PORT = /^(https?:\/\/[^/?#@:[\]*]+):\*(?=$|[/?#])/i;

/** The prefixes of the var; entries that are not http(s) URLs, or carry credentials, are left out. */
export function readAllowedUrls(env: { MCP_ALLOWED_URLS?: string | undefined }): AllowedUrlPrefix[] {
  return readSetting(env, "MCP_ALLOWED_URLS").flatMap((entry): AllowedUrlPrefix[] => {
    const anyPort = ANY_PORT.exec(entry);
    // Without its `:*` the entry is an ordinary URL; a port still in it (`http://h:*:80`) fails the pattern.
    const url = parseHttpUrl(anyPort ? `${anyPort[1]}${entry.slice(anyPort[0].length)}` : entry);
    // A `*` the URL parser lets through as a host is never a pattern: hosts match exactly.
    if (!url || url.hostname.includes("*")) return [];
    if (anyPort) return url.port === "" ? [{ protocol: url.protocol, host: url.hostname, path: url.pathname, anyPort: true }] : [];
    return [{ protocol: url.protocol, host: url.host, path: url.pathname }];
  });
}

/** True when `candidate` parses as an http(s) URL without credentials and lies under one of the prefixes. */
export function isAllowedMcpUrl(candidate: string, prefixes: readonly AllowedUrlPrefix[]): boolean {
  const url = parseHttpUrl(candidate);
  if (!url) return false;
  return prefixes.some(
    (p) => p.protocol === url.protocol && (p.anyPort ? p.host === url.hostname : p.host === url.host) && underPath(url.pathname, p.path),
  );
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
