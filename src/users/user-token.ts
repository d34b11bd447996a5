/**
 * Signing in with the app's own tokens (docs/security.md "Users"): a JWT its identity provider issued,
 * checked with `jose` against the provider's JWKS (AUTH_JWKS_URL), names the user by its `sub`. Only
 * RS256 and ES256; `exp` required, `nbf` honoured, 60 s leeway either way; `iss` must be AUTH_ISSUER and
 * `aud` must include AUTH_AUDIENCE. Keys are picked by `kid`; an unknown `kid` refetches the JWKS at most
 * once a minute (a key rotation is picked up, a flood of made-up kids costs one fetch a minute).
 * `jose` is imported on the first token only, so an isolate that never sees one never loads it, and only
 * its verification modules (jwt/verify, jwks/remote, errors): nothing of JWE or signing is bundled.
 * Called by src/http/user-auth.ts; a refusal is a value naming the reason, for the operator's log.
 */

import { readSetting } from "../config.ts";

/** The three vars that switch sign-in on; with any of them blank, no token is accepted. */
export type AuthEnv = {
  AUTH_JWKS_URL?: string | undefined;
  AUTH_ISSUER?: string | undefined;
  AUTH_AUDIENCE?: string | undefined;
};

export type AuthConfig = { jwksUrl: URL; issuer: string; audience: string };

export type TokenCheck = { ok: true; userId: string } | { ok: false; reason: string };

/** Leeway on `exp` and `nbf`, for clocks that disagree a little. */
export const CLOCK_LEEWAY_SECONDS = 60;
/** An unknown `kid` refetches the JWKS no more often than this. */
export const JWKS_REFETCH_MS = 60_000;
/** A JWKS is fetched again after this long even when every kid is known (keys retire). */
const JWKS_MAX_AGE_MS = 10 * 60_000;
const JWKS_TIMEOUT_MS = 5_000;
const ALGORITHMS = ["RS256", "ES256"];
/** A `sub` longer than this names no user we keep (it becomes a Durable Object name and index rows). */
const MAX_SUB_LENGTH = 255;

/** The sign-in settings, or undefined when sign-in is off (any var blank) or the URL is not http(s). */
export function authConfig(env: AuthEnv): AuthConfig | undefined {
  const url = readSetting(env, "AUTH_JWKS_URL");
  const issuer = readSetting(env, "AUTH_ISSUER");
  const audience = readSetting(env, "AUTH_AUDIENCE");
  if (!url || !issuer || !audience || !URL.canParse(url)) return undefined;
  const jwksUrl = new URL(url);
  if (jwksUrl.protocol !== "https:" && jwksUrl.protocol !== "http:") return undefined;
  return { jwksUrl, issuer, audience };
}

/**
 * What is wrong when sign-in is set up in part (some of the three vars set, or a JWKS URL that is not
 * http(s)), else undefined: such a Worker accepts no token, and says why rather than treating a user's
 * token as a wrong key.
 */
export function authConfigProblem(env: AuthEnv): string | undefined {
  const names = ["AUTH_JWKS_URL", "AUTH_ISSUER", "AUTH_AUDIENCE"] as const;
  const missing = names.filter((name) => !readSetting(env, name));
  if (missing.length === names.length) return undefined;
  if (missing.length > 0)
    return `Sign-in is configured in part: ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set (AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE go together)`;
  return authConfig(env) ? undefined : "AUTH_JWKS_URL is not an http(s) URL";
}

/** Three base64url parts, the last possibly empty (`alg: none`): a JWT's shape, never a session key's or a URL's. */
export function looksLikeJwt(text: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(text);
}

type Jose = {
  jwtVerify: typeof import("jose/jwt/verify").jwtVerify;
  createRemoteJWKSet: typeof import("jose/jwks/remote").createRemoteJWKSet;
  errors: typeof import("jose/errors");
};
type KeySet = ReturnType<Jose["createRemoteJWKSet"]>;

let loaded: Promise<Jose> | undefined;

/** The parts of jose this module uses, loaded once per isolate on the first token. */
function loadJose(): Promise<Jose> {
  loaded ??= Promise.all([import("jose/jwt/verify"), import("jose/jwks/remote"), import("jose/errors")]).then(
    ([verify, remote, errors]) => ({ jwtVerify: verify.jwtVerify, createRemoteJWKSet: remote.createRemoteJWKSet, errors }),
  );
  return loaded;
}

/** One key set per JWKS URL per isolate: its cache and refetch cooldown outlive a request. */
const keySets = new Map<string, KeySet>();

function keySetFor(jose: Jose, url: URL): KeySet {
  let set = keySets.get(url.href);
  if (!set) {
    set = jose.createRemoteJWKSet(url, {
      cooldownDuration: JWKS_REFETCH_MS,
      cacheMaxAge: JWKS_MAX_AGE_MS,
      timeoutDuration: JWKS_TIMEOUT_MS,
    });
    keySets.set(url.href, set);
  }
  return set;
}

/** Checks `token`; the user is its `sub`. Never throws: a refusal names why (for the log, not the caller). */
export async function verifyUserToken(config: AuthConfig, token: string): Promise<TokenCheck> {
  const jose = await loadJose();
  try {
    const { payload } = await jose.jwtVerify(token, keySetFor(jose, config.jwksUrl), {
      algorithms: ALGORITHMS,
      issuer: config.issuer,
      audience: config.audience,
      clockTolerance: CLOCK_LEEWAY_SECONDS,
      requiredClaims: ["exp", "sub"],
    });
    const sub = payload.sub;
    if (typeof sub !== "string" || sub === "" || sub.length > MAX_SUB_LENGTH) return { ok: false, reason: "sub is empty or too long" };
    return { ok: true, userId: sub };
  } catch (err) {
    return { ok: false, reason: refusalReason(jose, err) };
  }
}

/** A short reason per refusal jose reports; anything else (a JWKS that cannot be fetched) by its message. */
function refusalReason(jose: Jose, err: unknown): string {
  const { errors } = jose;
  if (err instanceof errors.JWTExpired) return "expired";
  if (err instanceof errors.JWTClaimValidationFailed) return `claim ${err.claim}: ${err.reason}`;
  if (err instanceof errors.JOSEAlgNotAllowed) return "algorithm not allowed";
  if (err instanceof errors.JWKSNoMatchingKey) return "no key with this kid";
  if (err instanceof errors.JWSSignatureVerificationFailed) return "bad signature";
  if (err instanceof errors.JWKSTimeout) return "JWKS fetch timed out";
  if (err instanceof errors.JOSEError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
