/**
 * Authorization for every session method, in one place: the session must exist and the caller must
 * present its key, which is checked in constant time against the SHA-256 stored at creation.
 * Called by AgentSession before each RPC method runs.
 */
import { keyMatchesHash } from "../credentials.ts";
import { ok, refuse, type SessionResult } from "./session-result.ts";

export async function authorize<S extends { settings: { keyHash: string } }>(
  session: S | undefined,
  key: string | undefined,
): Promise<SessionResult<S>> {
  if (!session) return refuse("not_found", "Session not found");
  if (!key) return refuse("missing_key", "Missing session key (Authorization: Bearer <key> or ?key=)");
  if (!(await keyMatchesHash(key, session.settings.keyHash))) return refuse("wrong_key", "Invalid session key");
  return ok(session);
}
