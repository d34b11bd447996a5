/**
 * Who the signed-in user is, once per request (docs/security.md "Users"): with AUTH_JWKS_URL,
 * AUTH_ISSUER and AUTH_AUDIENCE set, a JWT in `Authorization: Bearer`, or (with no bearer at all) in
 * `Cf-Access-Jwt-Assertion` for a Worker behind Cloudflare Access, is verified (src/users/user-token.ts)
 * and its `sub` becomes `c.var.user`. A header is only a place to find a token: the token must verify,
 * whoever set the header. A refused token is a 401 that tells the caller nothing more; the reason goes
 * to the operator's log. A bearer that is not JWT-shaped (a session key, the API token) is left to the
 * routes, as before. A token on a Worker whose sign-in is set up in part is a 500 `misconfigured` naming
 * the missing var, never a wrong key. Mounted by app.ts on /v1/*.
 */
import type { Context, MiddlewareHandler } from "hono";
import { readSetting } from "../config.ts";
import { secretMatches } from "../credentials.ts";
import { authConfig, authConfigProblem, looksLikeJwt, verifyUserToken } from "../users/user-token.ts";
import { readBearer } from "./auth.ts";
import { ApiError } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";

/** Where the user's token came from: a bearer token wins over the Access header, and a session key over both. */
export type SignedInUser = { id: string; from: "bearer" | "access" };

const ACCESS_HEADER = "cf-access-jwt-assertion";

export const refusedToken = () => new ApiError(401, "unauthorized", "Invalid or expired token");

export const identifyUser: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const config = authConfig(c.env);
  const problem = config ? undefined : authConfigProblem(c.env);
  if (!config && !problem) return next();
  const bearer = readBearer(c.req.raw);
  const found = await presentedToken(c, bearer);
  if (!found) return next();
  if (!config) throw misconfigured(problem ?? "");
  const check = await verifyUserToken(config, found.token);
  if (!check.ok) {
    console.warn(
      JSON.stringify({ event: "userTokenRefused", from: found.from, reason: check.reason, method: c.req.method, path: c.req.path }),
    );
    throw refusedToken();
  }
  c.set("user", { id: check.userId, from: found.from });
  return next();
};

async function presentedToken(
  c: Context<HonoEnv>,
  bearer: string | undefined,
): Promise<{ token: string; from: SignedInUser["from"] } | undefined> {
  if (bearer !== undefined) {
    if (!looksLikeJwt(bearer)) return undefined;
    // An API token that happens to look like a JWT stays the operator's.
    const apiToken = readSetting(c.env, "API_TOKEN");
    if (apiToken && (await secretMatches(bearer, apiToken))) return undefined;
    return { token: bearer, from: "bearer" };
  }
  const access = c.req.header(ACCESS_HEADER)?.trim();
  return access ? { token: access, from: "access" } : undefined;
}

const misconfigured = (problem: string) => new ApiError(500, "misconfigured", problem);

/** The signed-in user, or the 401 a user's route answers without one. */
export function requireUser(c: Context<HonoEnv>): string {
  const user = c.get("user");
  if (user) return user.id;
  const problem = authConfigProblem(c.env);
  if (problem) throw misconfigured(problem);
  if (!authConfig(c.env))
    throw new ApiError(
      403,
      "forbidden",
      "Sign-in is not configured on this Worker: set AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE (docs/security.md)",
    );
  throw new ApiError(401, "unauthorized", "This route needs a signed-in user's token (Authorization: Bearer <JWT>)");
}
