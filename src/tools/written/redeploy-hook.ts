/**
 * Asks for a redeploy after writeTool committed a tool: a POST to REDEPLOY_HOOK_URL carrying the shared
 * secret REDEPLOY_HOOK_SECRET as a bearer token. The body has GitHub's repository_dispatch shape
 * (`{event_type, client_payload}`), so a workflow that runs `npm run redeploy` can be the hook as is.
 * Never throws: a missing configuration or a failing hook is an outcome the tool reports to the model.
 */
import { readSetting } from "../../config.ts";
import { describeError } from "../../core/index.ts";
import type { WrittenToolEntry } from "./spec.ts";

export type RedeployHookEnv = { REDEPLOY_HOOK_URL?: string; REDEPLOY_HOOK_SECRET?: string };
export type RedeployOutcome = { requested: true; status: number } | { requested: false; reason: string };

export const REDEPLOY_EVENT_TYPE = "redeploy-tools";
/** A hook that does not answer in this time is reported as failed; the tool stays pending either way. */
export const REDEPLOY_HOOK_TIMEOUT_MS = 10_000;
const OPERATOR_STEP = "an operator must run `npm run redeploy`";

export async function requestRedeploy(
  env: RedeployHookEnv,
  entry: WrittenToolEntry,
  fetchImpl: typeof fetch = fetch,
): Promise<RedeployOutcome> {
  const url = readSetting(env, "REDEPLOY_HOOK_URL");
  if (!url) return { requested: false, reason: `no REDEPLOY_HOOK_URL is configured: ${OPERATOR_STEP}` };
  const secret = readSetting(env, "REDEPLOY_HOOK_SECRET");
  // Without the secret anyone could trigger deploys through the same hook: do not call it unauthenticated.
  if (!secret) return { requested: false, reason: `REDEPLOY_HOOK_URL is set but REDEPLOY_HOOK_SECRET is not: ${OPERATOR_STEP}` };
  try {
    const response = await fetchImpl(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        accept: "application/vnd.github+json, application/json",
        "user-agent": "edge-agent-writeTool",
      },
      body: JSON.stringify({
        event_type: REDEPLOY_EVENT_TYPE,
        client_payload: { name: entry.name, version: entry.version, hash: entry.hash },
      }),
      signal: AbortSignal.timeout(REDEPLOY_HOOK_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.ok) return { requested: true, status: response.status };
    return { requested: false, reason: `the redeploy hook answered HTTP ${response.status}: ${OPERATOR_STEP}` };
  } catch (err) {
    return { requested: false, reason: `the redeploy hook failed (${describeError(err)}): ${OPERATOR_STEP}` };
  }
}
