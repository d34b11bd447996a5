/**
 * Who may create sessions (docs/security.md). A Worker is *local* only when the var LOCAL_DEV is "true",
 * which `npm start` and `npm run dev` pass and wrangler.toml never sets; the Host header decides nothing
 * (a reverse proxy may rewrite it to localhost). Local: open, for development. Deployed: API_TOKEN when
 * set; without it, refused unless the owner opted in with ALLOW_ANONYMOUS_SESSIONS="true".
 * Called by the router before a session is created; pure apart from the constant-time token check.
 */
import { secretMatches } from "../credentials.ts";
import { readSetting } from "../config.ts";
import { readBearer } from "./auth.ts";
import { ApiError, WrongCredential } from "./errors.ts";

export type AccessEnv = { API_TOKEN?: string | undefined; ALLOW_ANONYMOUS_SESSIONS?: string | undefined; LOCAL_DEV?: string | undefined };

/** True under `npm start`/`npm run dev` (LOCAL_DEV="true"), false for every deployed Worker. */
export const isLocalWorker = (env: { LOCAL_DEV?: string | undefined }): boolean => readSetting(env, "LOCAL_DEV");

export const allowsAnonymousSessions = (env: AccessEnv): boolean => readSetting(env, "ALLOW_ANONYMOUS_SESSIONS");

/**
 * Throws the 401/403 that says what to set or send; returns when the request may create a session. A
 * signed-in user (`signedIn`: their token verified, src/http/user-auth.ts) may always create their own.
 */
export async function checkSessionCreation(request: Request, env: AccessEnv, signedIn = false): Promise<void> {
  if (signedIn || allowsAnonymousSessions(env)) return;
  const token = readSetting(env, "API_TOKEN");
  if (!token) {
    if (isLocalWorker(env)) return;
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

/** The API_TOKEN check shared by session creation and the operator routes: a bearer header only, never a URL. */
export async function checkApiToken(request: Request, token: string): Promise<void> {
  const presented = readBearer(request);
  if (!presented) throw new ApiError(401, "unauthorized", "This route needs the API token (Authorization: Bearer <API_TOKEN>)");
  if (!(await secretMatches(presented, token))) throw new WrongCredential("Invalid API token");
}
