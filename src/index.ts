/**
 * Worker entry: the HTTP API (Hono) for /v1/*, static assets (the web client) for everything else,
 * and the AgentSession Durable Object class.
 */
import { app } from "./http/app.ts";

export { AgentSession } from "./session/agent-session.ts";
export default app;
