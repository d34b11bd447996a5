/**
 * Who is the operator: the caller presenting API_TOKEN, or, when no token is configured, anyone on a
 * local Worker (LOCAL_DEV). Used by the tool routes and /mcp. A deployed Worker without API_TOKEN has
 * no operator at all, so its operator routes refuse everyone with a 403 that says what to set.
 */
import type { Context } from "hono";
import { readSetting } from "../config.ts";
import { secretMatches } from "../credentials.ts";
import { checkApiToken, isLocalWorker } from "./access-policy.ts";
import { readBearer } from "./auth.ts";
import { ApiError, WrongCredential } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";

/** Throws the 401/403 for a caller that is not the operator. */
export async function requireApiToken(c: Context<HonoEnv>): Promise<void> {
  const token = readSetting(c.env, "API_TOKEN");
  if (token) return checkApiToken(c.req.raw, token);
  if (!isLocalWorker(c.env)) {
    throw new ApiError(
      403,
      "forbidden",
      "Operator routes of a deployed Worker need API_TOKEN: set it with `wrangler secret put API_TOKEN`",
    );
  }
}

/** Whether the caller is the operator, for routes that answer everyone but show the operator more. A wrong token is refused. */
export async function isOperator(c: Context<HonoEnv>): Promise<boolean> {
  const token = readSetting(c.env, "API_TOKEN");
  if (!token) return isLocalWorker(c.env);
  const presented = readBearer(c.req.raw);
  if (presented === undefined) return false;
  if (!(await secretMatches(presented, token))) throw new WrongCredential("Invalid API token");
  return true;
}
