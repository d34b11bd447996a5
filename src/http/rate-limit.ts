/**
 * Per-client limits, through the Workers Rate Limiting binding (`[[ratelimits]]` in wrangler.toml;
 * simulated by wrangler dev and the vitest plugin): creating sessions, sending messages (/messages,
 * /follow-ups, /chat, /continue), and presenting a wrong credential (API token or session key), counted
 * against the session-creation limit. The client is its address (client-address.ts). Nothing is limited
 * under LOCAL_DEV: there the only client is the owner (and the tests). A missing binding limits nothing.
 */
import type { Context, MiddlewareHandler } from "hono";
import { isLocalWorker } from "./access-policy.ts";
import { clientKey } from "./client-address.ts";
import { ApiError, type WrongCredential } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";

/** The window of the `simple` limits in wrangler.toml: a refused client may try again after it. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;
/** Clients this isolate remembers as refused for wrong credentials; the oldest is forgotten first. */
const MAX_REFUSED_CLIENTS = 10_000;

export type RateLimitBinding = { limit(options: { key: string }): Promise<{ success: boolean }> };
export type LimitedAction = "create a session" | "send a message" | "add an MCP server" | "present a wrong credential";

const tooMany = (action: LimitedAction) =>
  new ApiError(
    429,
    "rate_limited",
    `Too many requests to ${action} from this client; retry after ${RATE_LIMIT_PERIOD_SECONDS} s`,
    RATE_LIMIT_PERIOD_SECONDS,
  );

/** Throws a 429 with Retry-After when this client used up its allowance for `action`. */
export async function enforceRateLimit(
  request: Request,
  env: { LOCAL_DEV?: string | undefined },
  binding: RateLimitBinding | undefined,
  action: LimitedAction,
): Promise<void> {
  if (!binding || isLocalWorker(env)) return;
  const { success } = await binding.limit({ key: `${action}:${clientKey(request)}` });
  if (!success) throw tooMany(action);
}

/** The limit as route middleware: `binding` names the env's Rate Limiting binding for `action`. */
export function limitRate(binding: "SESSION_RATE_LIMIT" | "MESSAGE_RATE_LIMIT", action: LimitedAction): MiddlewareHandler<HonoEnv> {
  return async (c, next) => {
    await enforceRateLimit(c.req.raw, c.env, c.env[binding], action);
    await next();
  };
}

/**
 * Clients over their wrong-credential allowance, until when (ms). The binding can only count, not be
 * asked, so the refusal is remembered here: until it expires such a client's credentials are not even
 * checked (a guess that happens to be right is refused too). Per isolate, and bounded.
 */
const refusedUntil = new Map<string, number>();

/** Middleware: a 429 for a client refused for wrong credentials, before any credential is checked. */
export const refuseGuessers: MiddlewareHandler<HonoEnv> = async (c, next) => {
  if (!isLocalWorker(c.env)) {
    const until = refusedUntil.get(clientKey(c.req.raw));
    if (until !== undefined && until > Date.now()) throw tooMany("present a wrong credential");
  }
  await next();
};

/** Counts a wrong credential: the 403 it earned, or a 429 once the client used up its allowance. */
export async function countWrongCredential(c: Context<HonoEnv>, err: WrongCredential): Promise<ApiError> {
  try {
    await enforceRateLimit(c.req.raw, c.env, c.env.SESSION_RATE_LIMIT, "present a wrong credential");
    return err;
  } catch (refused) {
    const client = clientKey(c.req.raw);
    refusedUntil.delete(client);
    refusedUntil.set(client, Date.now() + RATE_LIMIT_PERIOD_SECONDS * 1_000);
    if (refusedUntil.size > MAX_REFUSED_CLIENTS) refusedUntil.delete(refusedUntil.keys().next().value!);
    return refused as ApiError;
  }
}
