/**
 * Who may create sessions (README "Access and limits"). A request is *local* when its URL's host is
 * localhost, 127.0.0.1 or [::1]: Cloudflare routes requests by host name, so a request that reaches a
 * deployed Worker can never carry one of these hosts. Local: open, for `npm start`. Deployed: API_TOKEN
 * when set; without it, refused unless the owner opted in with ALLOW_ANONYMOUS_SESSIONS="true".
 * Called by the router before a session is created; pure apart from the constant-time token check.
 */
import { secretMatches } from "../credentials.ts";
import { readPresentedKey } from "./auth.ts";
import { ApiError } from "./errors.ts";

export type AccessEnv = { API_TOKEN?: string | undefined; ALLOW_ANONYMOUS_SESSIONS?: string | undefined };

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True for a request addressed to this machine (wrangler dev, `npm start`), false for a deployed Worker. */
export function isLocalRequest(url: string | URL): boolean {
  return LOCAL_HOSTS.has(new URL(url).hostname);
}

export const allowsAnonymousSessions = (env: AccessEnv): boolean => env.ALLOW_ANONYMOUS_SESSIONS?.trim().toLowerCase() === "true";

/** Throws the 401/403 that says what to set or send; returns when the request may create a session. */
export async function checkSessionCreation(request: Request, env: AccessEnv): Promise<void> {
  if (allowsAnonymousSessions(env)) return;
  const token = env.API_TOKEN?.trim();
  if (!token) {
    if (isLocalRequest(request.url)) return;
    throw new ApiError(
      403,
      "forbidden",
      "This Worker is deployed without API_TOKEN, so it refuses to create sessions: set the secret " +
        "(`wrangler secret put API_TOKEN`) and send it as `Authorization: Bearer <API_TOKEN>`, or set the var " +
        'ALLOW_ANONYMOUS_SESSIONS="true" to let anyone create sessions (rate-limited)',
    );
  }
  await checkApiToken(request, token);
}

/** The API_TOKEN check shared by session creation and the operator routes. */
export async function checkApiToken(request: Request, token: string): Promise<void> {
  const presented = readPresentedKey(request);
  if (!presented) throw new ApiError(401, "unauthorized", "This route needs the API token (Authorization: Bearer <API_TOKEN>)");
  if (!(await secretMatches(presented, token))) throw new ApiError(403, "forbidden", "Invalid API token");
}
