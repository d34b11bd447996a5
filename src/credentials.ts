/**
 * Secret comparison shared by the router (API_TOKEN) and the session (its key's stored SHA-256).
 * Neutral ground so neither side imports the other. Comparisons are constant-time over fixed-length
 * digests, so timing reveals nothing about a secret.
 */
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

/** True when `presented` hashes to `keyHash` (a session key checked against what was stored at creation). */
export async function keyMatchesHash(presented: string, keyHash: string): Promise<boolean> {
  return constantTimeEqual(await sha256Hex(presented), keyHash);
}
