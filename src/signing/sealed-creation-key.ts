/**
 * The session key of an idempotent creation, sealed for the 24 h its repeat may come: AES-256-GCM under a
 * key derived (HKDF) from SIGNING_SECRET, the session id and the Idempotency-Key. The session keeps only
 * the sealed text, so its storage never holds a readable key; a repeat presenting the same Idempotency-Key
 * lets the Worker open it and answer the same key. Without the secret, the stored row and the
 * Idempotency-Key together open nothing.
 */
import { deriveKey, type SigningEnv, signingRoot } from "./signing-secret.ts";
import { base64Url, fromBase64Url } from "./session-ids.ts";

/** What a sealed key is bound to: the session it opens and the Idempotency-Key that created it. */
export type CreationBinding = { sessionId: string; idempotencyKey: string };

const VERSION = "v1";
const IV_BYTES = 12;

async function sealingKey(env: SigningEnv, binding: CreationBinding, issue: boolean): Promise<CryptoKey | undefined> {
  const root = await signingRoot(env, issue);
  if (!root) return undefined;
  // JSON keeps the parts apart whatever characters the Idempotency-Key holds.
  const info = JSON.stringify(["edge-agent creation key v1", binding.sessionId, binding.idempotencyKey]);
  return deriveKey(root, info, { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
}

/** `v1.<base64url of IV and ciphertext>`. Throws SigningSecretMissing when there is no secret. */
export async function sealCreationKey(env: SigningEnv, binding: CreationBinding, sessionKey: string): Promise<string> {
  const key = (await sealingKey(env, binding, true))!;
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(sessionKey)));
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return `${VERSION}.${base64Url(out)}`;
}

/** The session key, or undefined when this text does not open under this binding and secret. */
export async function openCreationKey(env: SigningEnv, binding: CreationBinding, sealed: string): Promise<string | undefined> {
  const [version, body] = sealed.split(".");
  if (version !== VERSION || !body) return undefined;
  const key = await sealingKey(env, binding, false);
  if (!key) return undefined;
  try {
    const bytes = fromBase64Url(body);
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES) }, key, bytes.subarray(IV_BYTES));
    return new TextDecoder().decode(plain);
  } catch {
    return undefined; // another secret, another key, or altered text
  }
}
