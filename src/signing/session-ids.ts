/**
 * Session ids the Worker can tell it issued: `s_`, the base64url of 16 bytes (random, or derived for an
 * idempotent creation or a sub-agent's child), then the base64url of a 12-byte tag: HMAC-SHA-256 of those
 * bytes under a key derived from SIGNING_SECRET (signing-secret.ts). The router checks the tag before it
 * addresses a Durable Object, because addressing a SQLite-backed object is what creates its database: an id
 * the Worker did not issue answers as an unknown session and costs no storage. Ids of the older, unsigned
 * shape (`s_` and 22 characters) pass only before LEGACY_SESSION_IDS_UNTIL, so a deployment whose sessions
 * predate signing can keep them for a while; unset, they are refused like any forgery.
 * The session signs too (a sub-agent's child), so this lives outside src/http.
 */
import { readSetting } from "../config.ts";
import { constantTimeEqual } from "../credentials.ts";
import { deriveKey, type SigningEnv, signingRoot } from "./signing-secret.ts";

declare const issued: unique symbol;
/** An id that passed `checkSessionId` or was just issued: the only kind the router addresses an object with. */
export type SessionId = string & { readonly [issued]: true };

export type SessionIdEnv = SigningEnv & { LEGACY_SESSION_IDS_UNTIL?: string | undefined };

const BODY_BYTES = 16;
const TAG_BYTES = 12;
/** An issued id: `s_`, 22 characters of body and 16 of tag. */
export const SESSION_ID_PATTERN = /^s_([A-Za-z0-9_-]{22})([A-Za-z0-9_-]{16})$/;
/** The unsigned shape ids had before they were signed: `s_` and 22 characters. */
export const LEGACY_SESSION_ID_PATTERN = /^s_[A-Za-z0-9_-]{22}$/;
/** Either shape, unanchored, for patterns of text that embeds an id (an MCP OAuth state). */
export const SESSION_ID_SOURCE = "s_(?:[A-Za-z0-9_-]{38}|[A-Za-z0-9_-]{22})";

/** The HKDF label of the tag key: no other use of the secret derives this key. */
const TAG_KEY_INFO = "edge-agent session id tag v1";
const tagKeys = new WeakMap<CryptoKey, Promise<CryptoKey>>();

/**
 * Issues an id: random, or from the first 16 bytes of `derived` (a digest, so the same creation or call
 * always gets the same id). Throws SigningSecretMissing when there is no secret to sign with.
 */
export async function issueSessionId(env: SigningEnv, derived?: Uint8Array): Promise<SessionId> {
  const body = derived ? derived.slice(0, BODY_BYTES) : crypto.getRandomValues(new Uint8Array(BODY_BYTES));
  if (body.length !== BODY_BYTES) throw new Error(`A session id needs ${BODY_BYTES} bytes, got ${body.length}`);
  const root = await signingRoot(env, true);
  return (await signedId(root!, body)) as SessionId;
}

/** `raw` as an issued id, or undefined when this Worker did not issue it (or the legacy window is closed). */
export async function checkSessionId(env: SessionIdEnv, raw: string | undefined, now = Date.now()): Promise<SessionId | undefined> {
  if (raw === undefined) return undefined;
  const signed = SESSION_ID_PATTERN.exec(raw);
  if (signed) {
    const root = await signingRoot(env, false);
    if (!root) return undefined;
    // Rebuilt from the body and compared whole: a non-canonical spelling of the same bytes is refused too.
    const expected = await signedId(root, fromBase64Url(signed[1]!));
    return constantTimeEqual(expected, raw) ? (raw as SessionId) : undefined;
  }
  return LEGACY_SESSION_ID_PATTERN.test(raw) && legacyIdsAccepted(env, now) ? (raw as SessionId) : undefined;
}

/** True before the instant LEGACY_SESSION_IDS_UNTIL names (ISO 8601; a date alone is 00:00 UTC); unset or unreadable: false. */
export function legacyIdsAccepted(env: Pick<SessionIdEnv, "LEGACY_SESSION_IDS_UNTIL">, now = Date.now()): boolean {
  const until = readSetting(env, "LEGACY_SESSION_IDS_UNTIL");
  return until !== undefined && now < until;
}

async function signedId(root: CryptoKey, body: Uint8Array): Promise<string> {
  let key = tagKeys.get(root);
  if (!key) {
    key = deriveKey(root, TAG_KEY_INFO, { name: "HMAC", hash: "SHA-256" }, ["sign"]);
    tagKeys.set(root, key);
  }
  const tag = new Uint8Array(await crypto.subtle.sign("HMAC", await key, body)).subarray(0, TAG_BYTES);
  return `s_${base64Url(body)}${base64Url(tag)}`;
}

export function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}
