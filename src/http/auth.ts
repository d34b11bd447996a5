/**
 * Credentials at the HTTP edge: minting session ids and keys (a key is returned once at creation; only its
 * SHA-256 is stored) and reading the key a request presents. Comparing secrets lives in src/credentials.ts,
 * which the session uses too.
 */
export function newSessionKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `sk_${base64Url(bytes)}`;
}

export function newSessionId(): string {
  return `s_${base64Url(crypto.getRandomValues(new Uint8Array(16)))}`;
}

/** The shape newSessionId issues: `s_` and the base64url of 16 random bytes (22 characters, no padding). */
export const SESSION_ID_PATTERN = /^s_[A-Za-z0-9_-]{22}$/;

/** A bearer token from the Authorization header, else `?key=` (EventSource cannot send headers). */
export function readPresentedKey(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  if (match) return match[1];
  return new URL(request.url).searchParams.get("key") ?? undefined;
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
