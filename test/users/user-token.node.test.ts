/**
 * Sign-in tokens (src/users/user-token.ts) against a real JWKS server on 127.0.0.1 and keys generated
 * here: acceptance for RS256 and ES256, and each refusal with its reason. Time is moved with a fake Date
 * only (the server and sockets keep real timers).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  authConfig,
  authConfigProblem,
  JWKS_REFETCH_MS,
  looksLikeJwt,
  verifyUserToken,
  type AuthConfig,
} from "../../src/users/user-token.ts";
import { startJwksServer, type JwksServer } from "../support/jwks-server.ts";
import { claimsFor, hmacWithPublicKey, nowSeconds, testKey, unsignedToken, type TestKey } from "../support/test-tokens.ts";

const ISSUER = "https://id.example.test/";
const AUDIENCE = "edge-agent-tests";

let server: JwksServer;
let rsa: TestKey;
let ec: TestKey;
let stranger: TestKey;

beforeAll(async () => {
  server = await startJwksServer();
  [rsa, ec, stranger] = await Promise.all([testKey("rsa-1", "RS256"), testKey("ec-1", "ES256"), testKey("rsa-1", "RS256")]);
  server.setKeys([rsa.publicJwk, ec.publicJwk]);
});
afterAll(() => server.close());
afterEach(() => vi.useRealTimers());

/** A config of its own per test: each JWKS URL has its own cache, so one test's fetches do not serve another. */
let n = 0;
const freshConfig = (): AuthConfig =>
  authConfig({ AUTH_JWKS_URL: `${server.url}/jwks.json?t=${++n}`, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE })!;
const claims = (extra = {}) => claimsFor("user-1", ISSUER, AUDIENCE, extra);

describe("user tokens", () => {
  it("is off unless all three vars are set", () => {
    expect(authConfig({})).toBeUndefined();
    expect(authConfig({ AUTH_JWKS_URL: `${server.url}/jwks.json`, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: " " })).toBeUndefined();
    expect(authConfig({ AUTH_JWKS_URL: "file:///etc/keys", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE })).toBeUndefined();
    expect(freshConfig().issuer).toBe(ISSUER);
  });

  it("names what is missing when sign-in is set up in part, and nothing when it is off or whole", () => {
    const whole = { AUTH_JWKS_URL: `${server.url}/jwks.json`, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE };
    expect(authConfigProblem({})).toBeUndefined();
    expect(authConfigProblem(whole)).toBeUndefined();
    expect(authConfigProblem({ ...whole, AUTH_AUDIENCE: " " })).toMatch(/^Sign-in is configured in part: AUTH_AUDIENCE is not set/);
    expect(authConfigProblem({ AUTH_ISSUER: ISSUER })).toMatch(/AUTH_JWKS_URL and AUTH_AUDIENCE are not set/);
    expect(authConfigProblem({ ...whole, AUTH_JWKS_URL: "file:///etc/keys" })).toBe("AUTH_JWKS_URL is not an http(s) URL");
  });

  it("tells a JWT's shape from a session key's", async () => {
    expect(looksLikeJwt(await rsa.sign(claims()))).toBe(true);
    expect(looksLikeJwt(unsignedToken(claims(), "rsa-1"))).toBe(true);
    expect(looksLikeJwt("sk_abcdefABCDEF0123456789-_")).toBe(false);
  });

  it("accepts RS256 and ES256 tokens and names the user by sub", async () => {
    const config = freshConfig();
    expect(await verifyUserToken(config, await rsa.sign(claims()))).toEqual({ ok: true, userId: "user-1" });
    expect(await verifyUserToken(config, await ec.sign(claimsFor("user-2", ISSUER, [AUDIENCE, "other"] as never)))).toEqual({
      ok: true,
      userId: "user-2",
    });
  });

  it("accepts a token expired or not yet valid within the 60 s leeway", async () => {
    const config = freshConfig();
    expect((await verifyUserToken(config, await rsa.sign(claims({ exp: nowSeconds() - 30 })))).ok).toBe(true);
    expect((await verifyUserToken(config, await rsa.sign(claims({ nbf: nowSeconds() + 30 })))).ok).toBe(true);
  });

  const refusals: [string, () => Promise<string>, RegExp][] = [
    ["expired beyond the leeway", () => rsa.sign(claims({ exp: nowSeconds() - 120 })), /expired/],
    ["not yet valid beyond the leeway", () => rsa.sign(claims({ nbf: nowSeconds() + 120 })), /nbf/],
    ["without exp", () => rsa.sign({ sub: "user-1", iss: ISSUER, aud: AUDIENCE }), /exp/],
    ["without sub", () => rsa.sign({ iss: ISSUER, aud: AUDIENCE, exp: nowSeconds() + 60 }), /sub/],
    ["from another issuer", () => rsa.sign(claimsFor("user-1", "https://evil.test/", AUDIENCE)), /iss/],
    ["for another audience", () => rsa.sign(claimsFor("user-1", ISSUER, "someone-else")), /aud/],
    ["with alg none", async () => unsignedToken(claims(), "rsa-1"), /algorithm not allowed/],
    ["HMAC-signed with the public key", () => hmacWithPublicKey(rsa, claims()), /algorithm not allowed/],
    ["signed by another key under a known kid", () => stranger.sign(claims()), /bad signature/],
    ["with a kid the JWKS does not have", () => stranger.sign(claims(), { kid: "nobody" }), /no key with this kid/],
    [
      "tampered after signing",
      async () => {
        const [h, , s] = (await rsa.sign(claims())).split(".");
        const body = Buffer.from(JSON.stringify(claimsFor("admin", ISSUER, AUDIENCE))).toString("base64url");
        return `${h}.${body}.${s}`;
      },
      /bad signature/,
    ],
    ["that is not a JWT at all", async () => "not.a.jwt", /./],
  ];
  for (const [name, token, reason] of refusals) {
    it(`refuses a token ${name}`, async () => {
      const check = await verifyUserToken(freshConfig(), await token());
      expect(check.ok).toBe(false);
      expect(check.ok ? "" : check.reason).toMatch(reason);
    });
  }

  it("picks up a rotated key, refetching for an unknown kid at most once a minute", async () => {
    const config = freshConfig();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date());
    expect((await verifyUserToken(config, await rsa.sign(claims()))).ok).toBe(true);
    const before = server.fetches();

    // The provider rotates: a new key, unknown to the cached set. Within the minute: refused, no fetch.
    const rotated = await testKey("rsa-2", "RS256");
    server.setKeys([rsa.publicJwk, ec.publicJwk, rotated.publicJwk]);
    vi.setSystemTime(Date.now() + 10_000);
    for (let i = 0; i < 5; i++) {
      const check = await verifyUserToken(config, await rotated.sign(claims()));
      expect(check).toEqual({ ok: false, reason: "no key with this kid" });
    }
    expect(server.fetches()).toBe(before);

    // After the cooldown one fetch finds it; made-up kids then cost no more than one fetch a minute.
    vi.setSystemTime(Date.now() + JWKS_REFETCH_MS);
    expect((await verifyUserToken(config, await rotated.sign(claims()))).ok).toBe(true);
    expect(server.fetches()).toBe(before + 1);
    for (let i = 0; i < 5; i++) await verifyUserToken(config, await stranger.sign(claims(), { kid: `made-up-${i}` }));
    expect(server.fetches()).toBe(before + 1);
  });

  it("refuses every token while the JWKS cannot be fetched", async () => {
    const config = authConfig({ AUTH_JWKS_URL: `${server.url}/missing.json`, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE })!;
    const check = await verifyUserToken(config, await rsa.sign(claims()));
    expect(check.ok).toBe(false);
  });
});
