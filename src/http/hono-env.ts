/**
 * The Hono environment every route file shares: the Worker's bindings and vars (src/env.ts). One type,
 * so the app and its route files agree on what `c.env` holds.
 */
import type { AppEnv } from "../env.ts";

export type HonoEnv = {
  Bindings: AppEnv;
  /** Set by the idempotency middleware (idempotency.ts) for routes that keep their own answer. */
  Variables: { idempotencyKeep?: unknown; idempotencyReplay?: unknown };
};
