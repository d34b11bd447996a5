/**
 * `/mcp`: the Worker's tools as an MCP server (Streamable HTTP, src/mcp/mcp-server.ts), for the operator
 * only (operator-access.ts). CORS and the body limit are the app's, as for every route. Mounted by app.ts.
 * The server loads on the first /mcp request: start-up CPU (the MCP SDK at load cost ~13 of ~31 ms).
 */
import { Hono } from "hono";
import type { HonoEnv } from "./hono-env.ts";
import { requireApiToken } from "./operator-access.ts";

export const mcpRoutes = new Hono<HonoEnv>();

mcpRoutes.all("/mcp", async (c) => {
  await requireApiToken(c);
  const { handleMcpRequest } = await import("../mcp/mcp-server.ts");
  return handleMcpRequest(c.req.raw, c.env);
});
