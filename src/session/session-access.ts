/**
 * Authorization for every session method, in one place. A caller presents the session's key (checked in
 * constant time against the SHA-256 stored at creation) or is a signed-in user the Worker verified
 * (src/http/user-auth.ts), who opens the sessions that belong to them. Whoever does not open this
 * session, presenting nothing, a wrong key or another user's token, hears exactly what an unknown
 * session answers ("not_found", same message): no answer tells a caller that a session exists.
 * Called by AgentSession before each RPC method runs.
 */
import { keyMatchesHash } from "../credentials.ts";
import { ok, refuse, type SessionResult } from "./session-result.ts";

/** What a request presents to a session: its key, a signed-in user (verified by the Worker), or nothing. */
export type Caller = string | { userId: string } | undefined;

export const SESSION_NOT_FOUND = "Session not found";

export async function authorize<S extends { settings: { keyHash: string; userId?: string } }>(
  session: S | undefined,
  caller: Caller,
): Promise<SessionResult<S>> {
  if (!session || caller === undefined || caller === "") return refuse("not_found", SESSION_NOT_FOUND);
  if (typeof caller === "object") {
    return session.settings.userId !== undefined && session.settings.userId === caller.userId
      ? ok(session)
      : refuse("not_found", SESSION_NOT_FOUND);
  }
  // Counted as a wrong credential by the Worker (rate-limited), but worded and answered as an unknown session.
  if (!(await keyMatchesHash(caller, session.settings.keyHash))) return refuse("wrong_key", SESSION_NOT_FOUND);
  return ok(session);
}
