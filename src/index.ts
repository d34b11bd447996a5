/**
 * Worker entry: the HTTP API (Hono) for /v1/*, static assets (the web client) for everything else,
 * and the Durable Object classes (AgentSession; McpCredentials, the Worker's MCP OAuth credentials;
 * McpSession, one 2025-11-25 /mcp session;
 * UserStore, a signed-in user's session list and memory).
 */
import { app } from "./http/app.ts";
// Every host feature's additions to the core's unions, in any program rooted here (see the module).
import type {} from "./host-vocabulary.ts";

export { AgentSession } from "./session/agent-session.ts";
export { McpCredentials } from "./mcp/oauth/mcp-credentials-object.ts";
export { McpSession } from "./mcp/server/mcp-session-object.ts";
export { UserStore } from "./users/user-store.ts";
export default app;
