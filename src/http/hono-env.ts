/**
 * The Hono environment every route file shares: the Worker's bindings and vars (src/env.ts). One type,
 * so the app and its route files agree on what `c.env` holds.
 */
import type { AppEnv } from "../env.ts";
import type { SignedInUser } from "./user-auth.ts";

export type HonoEnv = {
  Bindings: AppEnv;
  /** Set by the idempotency middleware (idempotency.ts) for routes that keep their own answer; `user` by user-auth.ts. */
  Variables: { idempotencyKeep?: unknown; idempotencyReplay?: unknown; user?: SignedInUser };
};
