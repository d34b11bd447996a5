/**
 * The two things every session route needs: the session's Durable Object stub, and what the request
 * presents: the key, which the object checks in constant time against the hash it stored at creation, or
 * the signed-in user, whose sessions the object knows by their `userId`. The stub
 * takes only a SessionId, which only checkSessionId and issueSessionId produce (src/signing/session-ids.ts):
 * addressing an object creates its storage, so no text the Worker did not issue may reach `idFromName`.
 */
import type { Context } from "hono";
import type { AgentSession } from "../session/agent-session.ts";
import type { Caller } from "../session/session-access.ts";
import type { SessionId } from "../signing/session-ids.ts";
import { readBearer, readEventsKey } from "./auth.ts";
import type { HonoEnv } from "./hono-env.ts";

export function sessionStub(env: HonoEnv["Bindings"], id: SessionId): DurableObjectStub<AgentSession> {
  return env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(id));
}

/**
 * What a request presents to its session: the signed-in user when the bearer was their token, else the
 * bearer (a session key), else the user of a Cloudflare Access token (src/http/user-auth.ts).
 */
export const sessionKey = (c: Context<HonoEnv>): Caller => callerOf(c, readBearer(c.req.raw));

/** The same for the events route, whose session key may also come as `?key=` (auth.ts). */
export const eventsKey = (c: Context<HonoEnv>): Caller => callerOf(c, readEventsKey(c.req.raw));

function callerOf(c: Context<HonoEnv>, key: string | undefined): Caller {
  const user = c.get("user");
  if (user?.from === "bearer") return { userId: user.id };
  if (key !== undefined) return key;
  return user ? { userId: user.id } : undefined;
}
