/**
 * Signed-in users for the workers-users project: tokens signed here with the keys the global setup put in
 * the JWKS server (test/support/users-global-setup.ts), and requests that carry them.
 */
import { SELF } from "cloudflare:test";
import { importJWK, SignJWT, type JWTPayload } from "jose";
import { inject } from "vitest";
import { apiRequestInit, type ApiInit } from "../support/http.ts";
import { USERS_AUDIENCE, USERS_ISSUER } from "./settings.ts";

const BASE_URL = "http://edge.test";
const now = () => Math.floor(Date.now() / 1000);

/** A token for `sub`, signed with the RS256 key (or `alg`'s), valid for an hour unless `claims` say otherwise. */
export async function tokenFor(sub: string, claims: JWTPayload = {}, alg: "RS256" | "ES256" = "RS256"): Promise<string> {
  const key = inject("userKeys").find((k) => k.alg === alg)!;
  const privateKey = await importJWK(key.privateJwk, alg);
  return new SignJWT({ sub, iss: USERS_ISSUER, aud: USERS_AUDIENCE, iat: now(), exp: now() + 3600, ...claims })
    .setProtectedHeader({ alg, kid: key.kid, typ: "JWT" })
    .sign(privateKey);
}

export const secondsFromNow = (s: number) => now() + s;

/** A request with `token` as the bearer (a user's JWT or a session key), or none. */
export function call(path: string, init: ApiInit & { token?: string } = {}): Promise<Response> {
  const { token, ...rest } = init;
  return SELF.fetch(`${BASE_URL}${path}`, apiRequestInit({ ...rest, ...(token === undefined ? {} : { key: token }) }));
}

/** A session created with `token` (201 expected), with the session key it was given. */
export async function createWith(token: string, json: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const res = await call("/v1/sessions", { method: "POST", token, json });
  if (res.status !== 201) throw new Error(`creation answered ${res.status}: ${await res.text()}`);
  return res.json();
}
