/**
 * The deployment's one signing secret, SIGNING_SECRET: the root of everything the Worker must later
 * recognise as its own (session ids, and the keys sealed for idempotent creations). Each use derives its
 * own key from it with HKDF and a label of its own, so no two uses share a key.
 * Deployed, it is a wrangler secret and nothing is signed without it: issuing fails with SigningSecretMissing
 * (a 500 naming the secret), never with an unsigned id. Local (LOCAL_DEV="true") without it, one is
 * generated the first time something is issued and kept in the TOOL_INDEX KV namespace under a reserved key,
 * with the rest of the local state: every isolate, and `npm start` after a reload, signs and checks with the
 * same one. Checking never generates: before anything was issued there is nothing to accept.
 */
import { readSetting } from "../config.ts";

export type SigningEnv = {
  SIGNING_SECRET?: string | undefined;
  LOCAL_DEV?: string | undefined;
  TOOL_INDEX?: KVNamespace | undefined;
};

/** Shorter secrets are refused: the secret is the only thing standing between a guesser and a forged id. */
export const MIN_SIGNING_SECRET_CHARS = 32;

/** Where local mode keeps its generated secret: outside the written-tool index's `tool:` prefix. */
export const LOCAL_SECRET_KV_KEY = "edge-agent:local-signing-secret";

/** Issuing needs the secret and there is none (or it is too short): the message says what to set. */
export class SigningSecretMissing extends Error {
  constructor(reason: string) {
    super(
      `${reason}: this Worker cannot issue session ids. Set the secret SIGNING_SECRET (at least ${MIN_SIGNING_SECRET_CHARS} ` +
        "random characters, e.g. `openssl rand -base64 32`) with `npx wrangler secret put SIGNING_SECRET`",
    );
    this.name = "SigningSecretMissing";
  }
}

type Secret = { ok: true; value: string } | { ok: false; reason: string };

/** Local secrets by namespace, once read or stored: a namespace's secret never changes while it exists. */
const foundSecrets = new WeakMap<KVNamespace, string>();
/** The latest lookup of each namespace, which the next one waits for. */
const lookups = new WeakMap<KVNamespace, Promise<string | undefined>>();
/** HKDF root keys by secret text, so a request imports nothing. A deployment has one or two secrets at most. */
const roots = new Map<string, Promise<CryptoKey>>();

const encoder = new TextEncoder();

/**
 * The HKDF root key of the secret. `issue`: the caller is about to issue something, so a missing secret
 * throws SigningSecretMissing (and local mode generates one); otherwise a missing secret is undefined.
 */
export async function signingRoot(env: SigningEnv, issue: boolean): Promise<CryptoKey | undefined> {
  const secret = await readSecret(env, issue);
  if (!secret.ok) {
    if (issue) throw new SigningSecretMissing(secret.reason);
    return undefined;
  }
  let root = roots.get(secret.value);
  if (!root) {
    root = crypto.subtle.importKey("raw", encoder.encode(secret.value), "HKDF", false, ["deriveKey"]);
    roots.set(secret.value, root);
  }
  return root;
}

/** A key for one purpose, derived from the root with `info` (a label, and whatever else binds the key). */
export function deriveKey(
  root: CryptoKey,
  info: string,
  algorithm: { name: "HMAC"; hash: "SHA-256" } | { name: "AES-GCM"; length: 256 },
  usages: ("sign" | "verify" | "encrypt" | "decrypt")[],
): Promise<CryptoKey> {
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(info) },
    root,
    algorithm,
    false,
    usages,
  );
}

async function readSecret(env: SigningEnv, issue: boolean): Promise<Secret> {
  const configured = readSetting(env, "SIGNING_SECRET");
  if (configured) {
    return configured.length >= MIN_SIGNING_SECRET_CHARS
      ? { ok: true, value: configured }
      : { ok: false, reason: `SIGNING_SECRET is shorter than ${MIN_SIGNING_SECRET_CHARS} characters` };
  }
  if (!readSetting(env, "LOCAL_DEV")) return { ok: false, reason: "SIGNING_SECRET is not set" };
  const kv = env.TOOL_INDEX;
  if (!kv) return { ok: false, reason: "SIGNING_SECRET is not set and there is no TOOL_INDEX namespace to keep a local one in" };
  const value = await localSecret(kv, issue);
  return value ? { ok: true, value } : { ok: false, reason: "SIGNING_SECRET is not set and no local one was generated yet" };
}

/**
 * The local secret in `kv`, generated and stored first when `create` and none is there. Lookups of one
 * namespace run one after another in an isolate, so concurrent first issues store one secret, not two.
 */
function localSecret(kv: KVNamespace, create: boolean): Promise<string | undefined> {
  const found = foundSecrets.get(kv);
  if (found) return Promise.resolve(found);
  const previous = lookups.get(kv) ?? Promise.resolve(undefined);
  const next = previous
    .catch(() => undefined)
    .then(async (known) => {
      if (known) return known;
      let value = (await kv.get(LOCAL_SECRET_KV_KEY)) ?? undefined;
      if (!value && create) {
        value = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
        await kv.put(LOCAL_SECRET_KV_KEY, value);
      }
      if (value) foundSecrets.set(kv, value);
      return value;
    });
  lookups.set(kv, next);
  return next;
}
