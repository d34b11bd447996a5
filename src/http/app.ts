/**
 * The Worker's HTTP API (docs/api.md "HTTP API (v1)"): one Hono app with the middleware every route shares (CORS,
 * one body limit, one error handler) and the route files per resource mounted under it: sessions, chat,
 * tools, mcp. Every failure leaves as `{error:{code,message}}` with its status; unexpected faults are
 * 500s with no internals leaked.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { readSetting } from "../config.ts";
import { chatRoutes } from "./chat-routes.ts";
import { allowedOrigin } from "./cors-policy.ts";
import { SigningSecretMissing } from "../signing/signing-secret.ts";
import { ApiError, errorResponse, WrongCredential } from "./errors.ts";
import { countWrongCredential, refuseGuessers } from "./rate-limit.ts";
import type { HonoEnv } from "./hono-env.ts";
import { mcpOAuthRoutes } from "./mcp-oauth-routes.ts";
import { mcpRoutes } from "./mcp-routes.ts";
import { MAX_BODY_BYTES } from "./schemas.ts";
import { sessionRoutes } from "./session-routes.ts";
import { toolRoutes } from "./tool-routes.ts";
import { identifyUser } from "./user-auth.ts";
import { userRoutes } from "./user-routes.ts";

export const app = new Hono<HonoEnv>();

/**
 * One CORS policy for every route (cors-policy.ts): the Worker's own origin unless CORS_ORIGINS says
 * otherwise. The MCP transport's own headers are allowed too, for browser MCP clients (the Inspector).
 */
const corsPolicy: MiddlewareHandler<HonoEnv> = async (c, next) =>
  cors({
    origin: (origin) => allowedOrigin(origin, c.req.url, readSetting(c.env, "CORS_ORIGINS")),
    allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID", "Accept", "Idempotency-Key", "Mcp-Session-Id", "Mcp-Protocol-Version"],
    allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
    exposeHeaders: ["Retry-After", "Mcp-Session-Id", "Mcp-Protocol-Version"],
    maxAge: 600,
  })(c, next);
app.use("/v1/*", corsPolicy);
app.use("/mcp", corsPolicy);

const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError(413, "payload_too_large", `Request body exceeds ${MAX_BODY_BYTES} bytes`);
  },
});
app.use("/v1/*", limitBody);
app.use("/mcp", limitBody);

app.use("/v1/*", refuseGuessers);
app.use("/mcp", refuseGuessers);
// The signed-in user (a verified JWT), for every route that opens sessions or a user's memory.
app.use("/v1/*", identifyUser);

app.onError(async (err, c) => {
  if (err instanceof WrongCredential) return errorResponse(await countWrongCredential(c, err));
  if (err instanceof ApiError) return errorResponse(err);
  if (err instanceof SigningSecretMissing) {
    // The operator's to fix, and never a reason to issue an unsigned id: said in the answer and in the logs.
    console.error(JSON.stringify({ event: "signingSecretMissing", method: c.req.method, path: c.req.path, message: err.message }));
    return errorResponse(new ApiError(500, "misconfigured", err.message));
  }
  // hono/validator's one own refusal: a JSON Content-Type whose body does not parse.
  if (err instanceof HTTPException && err.status === 400) return errorResponse(new ApiError(400, "bad_request", "Body is not valid JSON"));
  console.error("unhandled error", c.req.method, c.req.path, err);
  return errorResponse(new ApiError(500, "internal", "Internal error"));
});
app.notFound((c) => errorResponse(new ApiError(404, "not_found", `No route for ${c.req.method} ${c.req.path}`)));

app.route("/", sessionRoutes);
app.route("/", userRoutes);
app.route("/", chatRoutes);
app.route("/", toolRoutes);
app.route("/", mcpRoutes);
app.route("/", mcpOAuthRoutes);
