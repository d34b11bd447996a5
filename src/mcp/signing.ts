/**
 * What /mcp hands a client and must later recognise as its own (a 2025-11-25 client's `Mcp-Session-Id`,
 * a Multi Round-Trip request's state) is sealed as `<payload>.<mac>`: the payload is base64url JSON, the
 * mac its HMAC-SHA-256 under the deployment's signing secret (SIGNING_SECRET). Any isolate holding the
 * secret can open what another issued, so no request needs the isolate that answered the one before.
 * The secret is a parameter: signingSecretOf picks it from the Worker's env.
 */

/** Keys imported once per secret, not per request. */
const keys = new Map<string, Promise<CryptoKey>>();
/** Without a configured secret: one random key for this isolate (local only; what it seals dies with it). */
let isolateSecret: string | undefined;

/** The deployment's signing secret, or (when none is set) this isolate's own random one. */
export function signingSecretOf(env: Readonly<Record<string, unknown>>): string {
  const configured = env.SIGNING_SECRET;
  if (typeof configured === "string" && configured.trim() !== "") return configured;
  isolateSecret ??= Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
  return isolateSecret;
}

function keyFor(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, key);
  }
  return key;
}

/** Seals `value` (JSON) for `purpose`: a value sealed for one purpose never opens for another. */
export async function seal(secret: string, purpose: string, value: unknown): Promise<string> {
  const payload = toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
  const mac = await crypto.subtle.sign("HMAC", await keyFor(secret), new TextEncoder().encode(`${purpose}.${payload}`));
  return `${payload}.${toBase64Url(new Uint8Array(mac))}`;
}

/** The value `token` was sealed with for `purpose`, or undefined when it was not sealed here (or was changed). */
export async function unseal(secret: string, purpose: string, token: string): Promise<unknown> {
  const dot = token.indexOf(".");
  if (dot <= 0 || token.length > 64 * 1024) return undefined;
  const payload = token.slice(0, dot);
  const mac = fromBase64Url(token.slice(dot + 1));
  if (!mac) return undefined;
  const ok = await crypto.subtle.verify("HMAC", await keyFor(secret), mac, new TextEncoder().encode(`${purpose}.${payload}`));
  if (!ok) return undefined;
  const bytes = fromBase64Url(payload);
  if (!bytes) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
