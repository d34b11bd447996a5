/**
 * Credentials: session keys (returned once at creation; only their SHA-256 is stored) and the optional
 * API_TOKEN. Comparisons are constant-time over fixed-length digests, so timing reveals nothing.
 */
export function newSessionKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `sk_${base64Url(bytes)}`;
}

export function newSessionId(): string {
  return `s_${base64Url(crypto.getRandomValues(new Uint8Array(16)))}`;
}

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** Hashing both sides first makes the comparison independent of the secret's length and content. */
export async function secretMatches(presented: string | undefined, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256Hex(presented ?? ""), sha256Hex(expected)]);
  return constantTimeEqual(a, b) && presented !== undefined;
}

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
