/**
 * GET /v1/mcp/oauth/callback: where an MCP server's authorization server sends the user back. The
 * `state` names who holds the flow (`w.<random>`: the Worker's McpCredentials object; `s.<session
 * id>.<random>`: that session) and that holder completes it only if it issued exactly this state
 * (stored by hash, one-time, expiring), so no client-chosen identity is trusted. The session id in a state
 * is checked like a route's (src/signing/session-ids.ts) before its object is addressed: a state naming
 * an id this Worker did not issue answers as an unknown session. Answers a small page.
 * GET /v1/mcp/oauth/client-metadata.json: the Worker's Client ID Metadata Document.
 */
import { Hono } from "hono";
import * as z from "zod";
import { lazySchema } from "../lazy-schema.ts";
import { forgetMcpListing } from "../mcp/client/mcp-catalog.ts";
import { WORKER_CREDENTIALS } from "../mcp/oauth/mcp-credentials-object.ts";
import { clientMetadataFor, MCP_CLIENT_METADATA_PATH, MCP_OAUTH_CALLBACK_PATH } from "../mcp/oauth/oauth-provider.ts";
import type { AuthCompletion } from "../mcp/oauth/oauth-completion.ts";
import { checkSessionId, SESSION_ID_SOURCE } from "../signing/session-ids.ts";
import { ApiError } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";
import { sessionStub } from "./session-stub.ts";
import { queryOf, sessionNotFound } from "./validation.ts";

export const mcpOAuthRoutes = new Hono<HonoEnv>();

const RANDOM = "[A-Za-z0-9_-]{43}";
const WORKER_STATE = new RegExp(`^w\\.${RANDOM}$`);
const SESSION_STATE = new RegExp(`^s\\.(${SESSION_ID_SOURCE})\\.${RANDOM}$`);

const callbackQuery = lazySchema(() =>
  z.object({
    state: z.string().max(200),
    code: z.string().max(4_096).optional(),
    // RFC 9207: the issuer of the response, compared with the one the flow expects (oauth-completion.ts).
    iss: z.string().max(2_048).optional(),
    error: z.string().max(200).optional(),
    error_description: z.string().max(1_000).optional(),
  }),
);

mcpOAuthRoutes.get(MCP_OAUTH_CALLBACK_PATH, queryOf(callbackQuery), async (c) => {
  const { state, code, iss, error, error_description } = c.req.valid("query");
  const sessionMatch = SESSION_STATE.exec(state);
  if (!WORKER_STATE.test(state) && !sessionMatch) throw new ApiError(400, "bad_request", "Unknown authorization state");
  if (error || !code)
    throw new ApiError(
      400,
      "bad_request",
      `The authorization was not granted: ${error ?? "no code"}${error_description ? ` (${error_description})` : ""}`,
    );
  let done: AuthCompletion;
  if (sessionMatch) {
    const id = await checkSessionId(c.env, sessionMatch[1]);
    if (!id) throw sessionNotFound();
    done = await sessionStub(c.env, id).completeMcpAuth(state, code, iss);
  } else {
    done = await c.env.MCP_CREDENTIALS.get(c.env.MCP_CREDENTIALS.idFromName(WORKER_CREDENTIALS)).complete(state, code, iss);
    // The session that asked lists the server's tools now; others find the tokens at their next run.
    if (done.ok) {
      forgetMcpListing(); // GET /v1/tools lists the server's tools now
      const id = await checkSessionId(c.env, done.sessionId);
      if (id)
        await sessionStub(c.env, id)
          .mcpAuthorized(done.server)
          .catch(() => undefined);
    }
  }
  if (!done.ok)
    throw new ApiError(done.status, done.status === 502 ? "internal" : done.status === 404 ? "not_found" : "bad_request", done.message);
  return c.html(
    `<!doctype html><meta charset="utf-8"><title>Connected</title><p>MCP server <b>${escapeHtml(done.server)}</b> is connected. You can close this tab; its tools are available to the session.</p>`,
  );
});

/**
 * The Worker's Client ID Metadata Document: an authorization server that supports them fetches this URL,
 * which is also the client id, instead of letting the Worker register. Public by nature: no secret in it.
 */
mcpOAuthRoutes.get(MCP_CLIENT_METADATA_PATH, (c) => {
  const origin = new URL(c.req.url).origin;
  return c.json({ client_id: `${origin}${MCP_CLIENT_METADATA_PATH}`, ...clientMetadataFor(`${origin}${MCP_OAUTH_CALLBACK_PATH}`) });
});

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
