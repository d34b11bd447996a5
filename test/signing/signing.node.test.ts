/**
 * The signing secret and what it signs, in plain Node: issued session ids pass the check and nothing else
 * does (a changed tag or body, another deployment's secret, a non-canonical spelling); a deployed Worker
 * without the secret issues nothing; local mode generates one secret, keeps it in KV and finds it again
 * after a reload, and a check alone never generates one; unsigned ids of the older shape pass only inside
 * LEGACY_SESSION_IDS_UNTIL; a sealed creation key opens only under its own binding and secret.
 */
import { describe, expect, it } from "vitest";
import { openCreationKey, sealCreationKey } from "../../src/signing/sealed-creation-key.ts";
import { checkSessionId, issueSessionId, SESSION_ID_PATTERN } from "../../src/signing/session-ids.ts";
import { LOCAL_SECRET_KV_KEY, SigningSecretMissing } from "../../src/signing/signing-secret.ts";

const deployed = { SIGNING_SECRET: "node-test-signing-secret-0123456789abcdef" };
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** `id` with the character at `index` replaced by the next one of the base64url alphabet. */
const bump = (id: string, index: number) => id.slice(0, index) + ALPHABET[(ALPHABET.indexOf(id[index]!) + 1) % 64] + id.slice(index + 1);

/** A KV namespace over `store`: a new one over the same store is what a reloaded isolate sees. */
function fakeKv(store: Map<string, string>, writes: string[] = []): KVNamespace {
  return {
    get: async (key: string) => store.get(key) ?? null,
    put: async (key: string, value: string) => {
      writes.push(key);
      store.set(key, value);
    },
  } as unknown as KVNamespace;
}

describe("issued session ids", () => {
  it("pass the check, and a changed tag, a changed body or another secret's id does not", async () => {
    const id = await issueSessionId(deployed);
    expect(id).toMatch(SESSION_ID_PATTERN);
    expect(await checkSessionId(deployed, id)).toBe(id);
    expect(await checkSessionId(deployed, bump(id, id.length - 1))).toBeUndefined(); // the tag
    expect(await checkSessionId(deployed, bump(id, 2))).toBeUndefined(); // the body
    const elsewhere = await issueSessionId({ SIGNING_SECRET: "another-deployment-secret-0123456789abcd" });
    expect(await checkSessionId(deployed, elsewhere)).toBeUndefined();
  });

  it("are random unless derived, and the same bytes always give the same id", async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, () => issueSessionId(deployed)));
    expect(new Set(ids).size).toBe(20);
    const digest = new Uint8Array(32).fill(7);
    expect(await issueSessionId(deployed, digest)).toBe(await issueSessionId(deployed, digest.slice()));
  });

  it("refuse a non-canonical spelling of the same body bytes", async () => {
    const id = await issueSessionId(deployed);
    // The body's 22nd character carries 2 bits of the last byte and 4 unused ones: flipping one unused bit
    // leaves the decoded bytes as they were.
    const last = ALPHABET.indexOf(id[23]!);
    const respelled = `${id.slice(0, 23)}${ALPHABET[last ^ 1]}${id.slice(24)}`;
    expect(respelled).not.toBe(id);
    expect(await checkSessionId(deployed, respelled)).toBeUndefined();
  });

  it("cannot be issued by a deployed Worker without the secret, or with a short one, and none passes there", async () => {
    const id = await issueSessionId(deployed);
    for (const env of [{}, { SIGNING_SECRET: "" }, { SIGNING_SECRET: "too-short" }]) {
      const refusal = await issueSessionId(env).catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(SigningSecretMissing);
      expect((refusal as Error).message).toContain("SIGNING_SECRET");
      expect(await checkSessionId(env, id)).toBeUndefined();
    }
  });
});

describe("local mode without SIGNING_SECRET", () => {
  it("generates one secret on the first issue, keeps it in KV, and a reloaded isolate checks with it", async () => {
    const store = new Map<string, string>();
    const writes: string[] = [];
    const local = { LOCAL_DEV: "true", TOOL_INDEX: fakeKv(store, writes) };
    const probe = await issueSessionId(deployed);
    expect(await checkSessionId(local, probe)).toBeUndefined();
    expect(writes).toEqual([]); // a check never generates
    const ids = await Promise.all([issueSessionId(local), issueSessionId(local)]);
    expect(writes).toEqual([LOCAL_SECRET_KV_KEY]); // concurrent first issues share one secret
    const reloaded = { LOCAL_DEV: "true", TOOL_INDEX: fakeKv(store) };
    for (const id of ids) expect(await checkSessionId(reloaded, id)).toBe(id);
    expect(await checkSessionId({ LOCAL_DEV: "true", TOOL_INDEX: fakeKv(new Map()) }, ids[0])).toBeUndefined();
  });

  it("prefers a configured secret to the generated one", async () => {
    const local = { LOCAL_DEV: "true", TOOL_INDEX: fakeKv(new Map()), ...deployed };
    expect(await checkSessionId(deployed, await issueSessionId(local))).toBeDefined();
  });
});

describe("unsigned ids of the older shape", () => {
  const legacy = "s_AAAAAAAAAAAAAAAAAAAAAA";
  const now = Date.parse("2026-06-01T00:00:00Z");

  it("are refused by default, and accepted only before LEGACY_SESSION_IDS_UNTIL", async () => {
    expect(await checkSessionId(deployed, legacy, now)).toBeUndefined();
    expect(await checkSessionId({ ...deployed, LEGACY_SESSION_IDS_UNTIL: "2026-07-01" }, legacy, now)).toBe(legacy);
    expect(await checkSessionId({ ...deployed, LEGACY_SESSION_IDS_UNTIL: "2026-05-31T23:59:59Z" }, legacy, now)).toBeUndefined();
    expect(await checkSessionId({ ...deployed, LEGACY_SESSION_IDS_UNTIL: "soon" }, legacy, now)).toBeUndefined();
    // The window opens the old shape only: other text stays refused.
    expect(await checkSessionId({ ...deployed, LEGACY_SESSION_IDS_UNTIL: "2026-07-01" }, `${legacy}A`, now)).toBeUndefined();
  });
});

describe("a sealed creation key", () => {
  const binding = { sessionId: "s_session", idempotencyKey: "create-1" };
  const key = "sk_the-session-key-in-plain-text";

  it("opens under the same session, Idempotency-Key and secret only, and does not hold the key readable", async () => {
    const sealed = await sealCreationKey(deployed, binding, key);
    expect(sealed).not.toContain(key);
    expect(sealed).not.toContain(btoa(key).slice(0, 12));
    expect(await openCreationKey(deployed, binding, sealed)).toBe(key);
    expect(await openCreationKey(deployed, { ...binding, idempotencyKey: "create-2" }, sealed)).toBeUndefined();
    expect(await openCreationKey(deployed, { ...binding, sessionId: "s_other" }, sealed)).toBeUndefined();
    expect(await openCreationKey({ SIGNING_SECRET: "another-deployment-secret-0123456789abcd" }, binding, sealed)).toBeUndefined();
    expect(await openCreationKey({}, binding, sealed)).toBeUndefined();
    expect(await openCreationKey(deployed, binding, `${sealed.slice(0, -2)}AA`)).toBeUndefined();
  });
});
