/**
 * `/mcp`: the Worker's tools as an MCP server (Streamable HTTP, src/mcp/server/mcp-server.ts), for the operator
 * only (operator-access.ts); open without a token only locally, and then only to loopback Host and Origin
 * (rebinding-guard.ts). CORS and the body limit are the app's, as for every route. Mounted by app.ts.
 * The server loads on the first /mcp request: start-up CPU (the MCP SDK at load cost ~13 of ~31 ms).
 */
import { Hono } from "hono";
import { readSetting } from "../config.ts";
import type { HonoEnv } from "./hono-env.ts";
import { requireApiToken } from "./operator-access.ts";
import { refuseRebinding } from "./rebinding-guard.ts";

export const mcpRoutes = new Hono<HonoEnv>();

mcpRoutes.all("/mcp", async (c) => {
  await requireApiToken(c);
  if (!readSetting(c.env, "API_TOKEN")) refuseRebinding(c.req.raw);
  const { handleMcpRequest } = await import("../mcp/server/mcp-server.ts");
  return handleMcpRequest(c.req.raw, c.env);
});
