/**
 * Credentials at the HTTP edge: minting session ids and keys (a key is returned once at creation; only its
 * SHA-256 is stored) and reading the credential a request presents (a header; a URL only for events). Comparing secrets lives in src/credentials.ts,
 * which the session uses too.
 */
export function newSessionKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `sk_${base64Url(bytes)}`;
}

export function newSessionId(): string {
  return sessionIdOf(crypto.getRandomValues(new Uint8Array(16)));
}

/** A session id of the issued shape from 16 bytes (random, or a digest for an idempotent creation). */
export const sessionIdOf = (bytes: Uint8Array): string => `s_${base64Url(bytes.subarray(0, 16))}`;

/** The shape newSessionId issues: `s_` and the base64url of 16 random bytes (22 characters, no padding). */
export const SESSION_ID_PATTERN = /^s_[A-Za-z0-9_-]{22}$/;

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

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
