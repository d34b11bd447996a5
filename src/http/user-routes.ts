/**
 * A signed-in user's own routes (docs/api.md "Users"): their sessions, most recently active first
 * (GET /v1/sessions, read from their UserStore alone: no session is woken), their memory (GET
 * /v1/memories, DELETE /v1/memories/:id), and the operator's erase of a user (DELETE /v1/users/:userId,
 * API_TOKEN: every session of theirs, then their store). The user is always the one their verified
 * token names (src/http/user-auth.ts), never a parameter. Mounted by app.ts.
 */
import { Hono } from "hono";
import * as z from "zod";
import { lazySchema } from "../lazy-schema.ts";
import { checkSessionId as checkIssued } from "../signing/session-ids.ts";
import { userStore } from "../users/user-store.ts";
import { ApiError } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";
import { requireApiToken } from "./operator-access.ts";
import { sessionStub } from "./session-stub.ts";
import { requireUser } from "./user-auth.ts";
import { noBody, queryOf } from "./validation.ts";

export const userRoutes = new Hono<HonoEnv>();

const sessionListQuery = lazySchema(() =>
  z.object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    // A page's `next` (`<lastActiveAt>.<id>`, user-store.ts): anything else would silently restart the list.
    before: z
      .string()
      .regex(/^\d{1,15}\.[A-Za-z0-9_-]{1,200}$/, "must be the `next` of an earlier page")
      .optional(),
  }),
);

const memoryQuery = lazySchema(() =>
  z.object({
    query: z.string().max(2_000).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  }),
);

userRoutes.get("/v1/sessions", queryOf(sessionListQuery), async (c) => {
  const userId = requireUser(c);
  const { limit, before } = c.req.valid("query");
  return c.json(await userStore(c.env, userId).listSessions(limit, before));
});

userRoutes.get("/v1/memories", queryOf(memoryQuery), async (c) => {
  const userId = requireUser(c);
  const { query, limit } = c.req.valid("query");
  return c.json({ memories: await userStore(c.env, userId).recall(query, limit) });
});

userRoutes.delete("/v1/memories/:id", noBody, async (c) => {
  const userId = requireUser(c);
  const id = c.req.param("id");
  if (!/^mem_[0-9a-f]{32}$/.test(id) || !(await userStore(c.env, userId).forget(id)))
    throw new ApiError(404, "not_found", "Memory not found");
  return c.json({ id, deleted: true });
});

/** Rounds of "shut down what is listed, then erase" before an erase raced by new sessions gives up. */
const ERASE_ROUNDS = 5;

/**
 * The operator's erase of one user: each listed session shut down as that user would, then the store,
 * which erases only when no session it lists was left out (one created during the erase is shut down in
 * the next round), so no session of theirs outlives the erase unlisted.
 */
userRoutes.delete("/v1/users/:userId", noBody, async (c) => {
  await requireApiToken(c);
  const userId = c.req.param("userId");
  if (userId.length === 0 || userId.length > 255) throw new ApiError(404, "not_found", "User not found");
  const store = userStore(c.env, userId);
  const ended: string[] = [];
  let sessions = 0;
  let listed: readonly string[] = await store.sessionIds();
  for (let round = 0; round < ERASE_ROUNDS; round++) {
    for (const raw of listed) {
      ended.push(raw);
      const id = await checkIssued(c.env, raw);
      if (!id) continue;
      if ((await sessionStub(c.env, id).shutdown({ userId })).ok) sessions += 1;
    }
    const erase = await store.eraseAll(ended);
    if (erase.erased) return c.json({ userId, erasedSessions: sessions });
    listed = erase.listed;
  }
  throw new ApiError(409, "conflict", `New sessions of this user kept appearing during the erase (${sessions} erased so far); retry`);
});
