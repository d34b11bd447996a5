/**
 * The Hono environment every route file shares: the Worker's bindings and vars (src/env.ts). One type,
 * so the app and its route files agree on what `c.env` holds.
 */
import type { AppEnv } from "../env.ts";

export type HonoEnv = { Bindings: AppEnv };
