/**
 * Worker entry: the HTTP API (Hono) for /v1/*, static assets (the web client) for everything else,
 * and the Durable Object classes (AgentSession; McpCredentials, the Worker's MCP OAuth credentials).
 */
import { app } from "./http/app.ts";

export { AgentSession } from "./session/agent-session.ts";
export { McpCredentials } from "./mcp/mcp-credentials-object.ts";
export default app;
