/**
 * The id of a sub-agent call's child session, derived (never chosen): a hash of the parent session, its
 * run and the call id the runtime assigned, keyed by the parent's key hash, then signed like every issued
 * id (src/signing/session-ids.ts) so the router accepts it. The same call always names the same child, so a
 * parent resumed after a restart re-attaches to it; nobody without the parent's key hash can compute it.
 */
import { issueSessionId } from "../../signing/session-ids.ts";
import type { SigningEnv } from "../../signing/signing-secret.ts";

export type ChildIdentity = { parentId: string; runId: string; toolCallId: string; parentKeyHash: string };

/** Throws SigningSecretMissing when the Worker has no secret to sign with. */
export async function childSessionId(env: SigningEnv, { parentId, runId, toolCallId, parentKeyHash }: ChildIdentity): Promise<string> {
  // JSON keeps the parts apart whatever characters a model-chosen call id holds.
  const input = new TextEncoder().encode(JSON.stringify(["sub-agent", parentId, runId, toolCallId, parentKeyHash]));
  return issueSessionId(env, new Uint8Array(await crypto.subtle.digest("SHA-256", input)));
}
