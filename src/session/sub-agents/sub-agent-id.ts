/**
 * The id of a sub-agent call's child session, derived (never chosen): a hash of the parent session, its
 * run and the call id the runtime assigned, keyed by the parent's key hash. The same call always names the
 * same child, so a parent resumed after a restart re-attaches to it; nobody without the parent's key hash
 * can compute it, and the id has the issued shape (`s_` + 22 base64url chars) the router accepts.
 */

export type ChildIdentity = { parentId: string; runId: string; toolCallId: string; parentKeyHash: string };

export async function childSessionId({ parentId, runId, toolCallId, parentKeyHash }: ChildIdentity): Promise<string> {
  // JSON keeps the parts apart whatever characters a model-chosen call id holds.
  const input = new TextEncoder().encode(JSON.stringify(["sub-agent", parentId, runId, toolCallId, parentKeyHash]));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", input));
  let binary = "";
  for (const byte of digest.subarray(0, 16)) binary += String.fromCharCode(byte);
  return `s_${btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}`;
}
