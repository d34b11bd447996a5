/**
 * What /mcp hands a client and must later recognise as its own (a 2025-11-25 client's `Mcp-Session-Id`,
 * a Multi Round-Trip request's state) is sealed as `<payload>.<mac>`: the payload is base64url JSON, the
 * mac its HMAC-SHA-256 under the deployment's signing secret (SIGNING_SECRET). Any isolate holding the
 * secret can open what another issued, so no request needs the isolate that answered the one before.
 * The key is a parameter: sealingKeyOf derives it from the Worker's env.
 */
import { deriveKey, type SigningEnv, signingRoot } from "../signing/signing-secret.ts";

/** Sealing keys, one per root key (itself cached per secret by signing-secret.ts). */
const keys = new WeakMap<CryptoKey, Promise<CryptoKey>>();
/** The HKDF label of the sealing key: no other use of the secret derives this key. */
const SEAL_KEY_INFO = "edge-agent mcp seal v1";

/**
 * The key /mcp seals with, derived from the deployment's signing secret (src/signing/signing-secret.ts;
 * under local mode a generated secret kept in KV, so every isolate and every restart opens what another
 * sealed). Deployed without SIGNING_SECRET it throws SigningSecretMissing: nothing is sealed unsigned.
 */
export async function sealingKeyOf(env: SigningEnv): Promise<CryptoKey> {
  const root = (await signingRoot(env, true))!;
  let key = keys.get(root);
  if (!key) {
    key = deriveKey(root, SEAL_KEY_INFO, { name: "HMAC", hash: "SHA-256" }, ["sign", "verify"]);
    keys.set(root, key);
  }
  return key;
}

/** Seals `value` (JSON) for `purpose`: a value sealed for one purpose never opens for another. */
export async function seal(key: CryptoKey, purpose: string, value: unknown): Promise<string> {
  const payload = toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${purpose}.${payload}`));
  return `${payload}.${toBase64Url(new Uint8Array(mac))}`;
}

/** The value `token` was sealed with for `purpose`, or undefined when it was not sealed here (or was changed). */
export async function unseal(key: CryptoKey, purpose: string, token: string): Promise<unknown> {
  const dot = token.indexOf(".");
  if (dot <= 0 || token.length > 64 * 1024) return undefined;
  const payload = token.slice(0, dot);
  const mac = fromBase64Url(token.slice(dot + 1));
  if (!mac) return undefined;
  const ok = await crypto.subtle.verify("HMAC", key, mac, new TextEncoder().encode(`${purpose}.${payload}`));
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
