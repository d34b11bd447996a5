/**
 * Idempotency-Key on `POST /v1/sessions`, where no session exists yet to keep the key: the session's id
 * is derived from the caller's scope and the key (and signed, like every id), so a repeat reaches the same Durable Object, which kept
 * the first answer ({id, key}) for 24 h (AgentSession.init). The scope is the API token when the request
 * presents it, else the client's address as the rate limiter keys it: guessing someone's key from another
 * scope addresses another object and never yields their session key. Called by session-routes.ts.
 */
import type { Context } from "hono";
import { secretMatches, sha256Hex } from "../credentials.ts";
import type { CreationKey } from "../session/agent-session.ts";
import { issueSessionId, type SessionId } from "../signing/session-ids.ts";
import { readBearer } from "./auth.ts";
import { clientKey } from "./client-address.ts";
import type { HonoEnv } from "./hono-env.ts";
import { fingerprintOf } from "./idempotency.ts";

/** Who is creating: the API token when presented and right, else the client address. */
async function creationScope(c: Context<HonoEnv>): Promise<string> {
  const token = c.env.API_TOKEN?.trim();
  const presented = readBearer(c.req.raw);
  if (token && (await secretMatches(presented, token))) return `token:${await sha256Hex(token)}`;
  return `client:${clientKey(c.req.raw)}`;
}

/** The id and creation record of an idempotent creation under `idempotencyKey`. */
export async function idempotentCreation(
  c: Context<HonoEnv>,
  idempotencyKey: string,
  sessionKey: string,
): Promise<{ id: SessionId; creation: CreationKey }> {
  const scope = await creationScope(c);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`session\n${scope}\n${idempotencyKey}`)));
  return { id: await issueSessionId(c.env, digest), creation: { idempotencyKey, fingerprint: await fingerprintOf(c), sessionKey } };
}
