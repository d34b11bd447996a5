/**
 * The two things every session route needs: the session's Durable Object stub, and the key the request
 * presents, which the object checks in constant time against the hash it stored at creation. The stub
 * takes only a SessionId, which only checkSessionId and issueSessionId produce (src/signing/session-ids.ts):
 * addressing an object creates its storage, so no text the Worker did not issue may reach `idFromName`.
 */
import type { Context } from "hono";
import type { AgentSession } from "../session/agent-session.ts";
import type { SessionId } from "../signing/session-ids.ts";
import { readBearer, readEventsKey } from "./auth.ts";
import type { HonoEnv } from "./hono-env.ts";

export function sessionStub(env: HonoEnv["Bindings"], id: SessionId): DurableObjectStub<AgentSession> {
  return env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(id));
}

/** The session key of a request: the bearer header. */
export const sessionKey = (c: Context<HonoEnv>): string | undefined => readBearer(c.req.raw);

/** The session key of the events route, which also takes `?key=` (auth.ts). */
export const eventsKey = (c: Context<HonoEnv>): string | undefined => readEventsKey(c.req.raw);
