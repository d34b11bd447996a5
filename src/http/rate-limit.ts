/**
 * Per-client limits on creating sessions and sending messages, through the Workers Rate Limiting binding
 * (`[[ratelimits]]` in wrangler.toml; simulated by wrangler dev and the vitest plugin). The client is the
 * address Cloudflare's edge puts in CF-Connecting-IP (clients cannot forge it there). Local requests are
 * not limited under LOCAL_DEV: there the only client is the owner (and the tests). A missing binding limits nothing.
 */
import type { MiddlewareHandler } from "hono";
import { isLocalWorker } from "./access-policy.ts";
import { ApiError } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";

/** The window of the `simple` limits in wrangler.toml: a refused client may try again after it. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

export type RateLimitBinding = { limit(options: { key: string }): Promise<{ success: boolean }> };
export type LimitedAction = "create a session" | "send a message";

/** Who is asking: CF-Connecting-IP, else the first X-Forwarded-For hop, else one shared bucket. */
export function clientKey(request: Request): string {
  const ip = request.headers.get("cf-connecting-ip")?.trim();
  if (ip) return ip;
  const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return forwarded || "unknown-client";
}

/** Throws a 429 with Retry-After when this client used up its allowance for `action`. */
export async function enforceRateLimit(request: Request, env: { LOCAL_DEV?: string | undefined }, binding: RateLimitBinding | undefined, action: LimitedAction): Promise<void> {
  if (!binding || isLocalWorker(env)) return;
  const { success } = await binding.limit({ key: `${action}:${clientKey(request)}` });
  if (success) return;
  throw new ApiError(
    429,
    "rate_limited",
    `Too many requests to ${action} from this client; retry after ${RATE_LIMIT_PERIOD_SECONDS} s`,
    RATE_LIMIT_PERIOD_SECONDS,
  );
}

/** The limit as route middleware: `binding` names the env's Rate Limiting binding for `action`. */
export function limitRate(binding: "SESSION_RATE_LIMIT" | "MESSAGE_RATE_LIMIT", action: LimitedAction): MiddlewareHandler<HonoEnv> {
  return async (c, next) => {
    await enforceRateLimit(c.req.raw, c.env, c.env[binding], action);
    await next();
  };
}
