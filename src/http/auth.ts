/**
 * Credentials at the HTTP edge: minting session keys (a key is returned once at creation; only its
 * SHA-256 is stored) and reading the credential a request presents (a header; a URL only for events). Comparing secrets lives in src/credentials.ts,
 * which the session uses too; session ids are issued and checked in src/signing/session-ids.ts.
 */
import { base64Url } from "../signing/session-ids.ts";

export function newSessionKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `sk_${base64Url(bytes)}`;
}

/** The bearer token of the Authorization header: the only place a credential is read from, but one. */
export function readBearer(request: Request): string | undefined {
  const match = request.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/**
 * The session key of `GET …/events`: the bearer header, else `?key=`, because a browser's EventSource
 * cannot send headers. Only a session key, only there: URLs end up in logs, proxies and history.
 */
export function readEventsKey(request: Request): string | undefined {
  return readBearer(request) ?? new URL(request.url).searchParams.get("key") ?? undefined;
}
