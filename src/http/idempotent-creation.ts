/**
 * Idempotency-Key on `POST /v1/sessions`, where no session exists yet to keep the key: the session's id
 * is derived from the caller's scope and the key (and signed, like every id), so a repeat reaches the same
 * Durable Object, which kept the first answer for 24 h (AgentSession.init). It keeps the session key only
 * sealed (src/signing/sealed-creation-key.ts): a repeat with the same Idempotency-Key opens it here. The
 * scope is the signed-in user, else the API token when the request presents it, else the client's address as the rate limiter keys
 * it: guessing someone's key from another scope addresses another object and never yields their session
 * key. Called by session-routes.ts.
 */
import type { Context } from "hono";
import { readSetting } from "../config.ts";
import { secretMatches, sha256Hex } from "../credentials.ts";
import type { CreationAnswer, CreationKey } from "../session/agent-session.ts";
import { openCreationKey, sealCreationKey } from "../signing/sealed-creation-key.ts";
import { issueSessionId, type SessionId } from "../signing/session-ids.ts";
import { readBearer } from "./auth.ts";
import { clientKey } from "./client-address.ts";
import { ApiError } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";
import { fingerprintOf } from "./idempotency.ts";

/** Who is creating: the signed-in user, else the API token when presented and right, else the client address. */
async function creationScope(c: Context<HonoEnv>): Promise<string> {
  const user = c.get("user");
  if (user) return `user:${await sha256Hex(user.id)}`;
  const token = readSetting(c.env, "API_TOKEN");
  const presented = readBearer(c.req.raw);
  if (token && (await secretMatches(presented, token))) return `token:${await sha256Hex(token)}`;
  return `client:${clientKey(c.req.raw)}`;
}

/** The id and creation record of an idempotent creation under `idempotencyKey`, the session key sealed. */
export async function idempotentCreation(
  c: Context<HonoEnv>,
  idempotencyKey: string,
  sessionKey: string,
): Promise<{ id: SessionId; creation: CreationKey }> {
  const scope = await creationScope(c);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`session\n${scope}\n${idempotencyKey}`)));
  const id = await issueSessionId(c.env, digest);
  const sealedKey = await sealCreationKey(c.env, { sessionId: id, idempotencyKey }, sessionKey);
  return { id, creation: { idempotencyKey, fingerprint: await fingerprintOf(c), sealedKey } };
}

/**
 * The key to answer a creation under `idempotencyKey`: `fresh` when this request created the session,
 * else the first request's key, opened from what the session kept.
 */
export async function repeatedCreationKey(
  env: HonoEnv["Bindings"],
  id: SessionId,
  idempotencyKey: string,
  created: CreationAnswer,
  fresh: string,
): Promise<string> {
  if (created.sealedKey === undefined) return created.key ?? fresh;
  const key = await openCreationKey(env, { sessionId: id, idempotencyKey }, created.sealedKey);
  if (key !== undefined) return key;
  // Sealed under another SIGNING_SECRET: the session exists, but its key cannot be answered again.
  throw new ApiError(409, "conflict", "The session this Idempotency-Key created can no longer be answered again; use a new key");
}
