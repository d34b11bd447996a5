/**
 * The session's one entry into src/mcp: reads `MCP_SERVERS`, picks the servers the session chose at
 * creation, and returns the SessionMcpTools that fills its ToolStore. A broken var or a server removed
 * from it since the session was created is reported (an `error` event), never thrown.
 */
import type { ToolStore } from "../core/index.ts";
import { parseMcpServers, type McpServerConfig } from "./servers-config.ts";
import { SessionMcpTools, type SessionElicit } from "./session-mcp-tools.ts";

export type McpEnv = { MCP_SERVERS?: string };

export function attachMcpTools(
  store: ToolStore,
  env: McpEnv,
  chosen: readonly string[] | undefined,
  report: (message: string) => void,
  elicit?: SessionElicit,
): SessionMcpTools {
  const parsed = parseMcpServers(env.MCP_SERVERS);
  if (!parsed.ok) return new SessionMcpTools(store, [], report, [`${parsed.message}; no MCP tools are available`]);
  const names = chosen ?? parsed.servers.map((s) => s.name);
  const servers: McpServerConfig[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const server = parsed.servers.find((s) => s.name === name);
    if (server) servers.push(server);
    else missing.push(name);
  }
  const problems = missing.length > 0 ? [`MCP server(s) ${missing.join(", ")} are no longer in MCP_SERVERS; their tools are unavailable`] : [];
  return new SessionMcpTools(store, servers, report, problems, elicit);
}

export { SessionMcpTools, type SessionElicit } from "./session-mcp-tools.ts";
export { parseMcpServers, selectMcpServers, type McpServerConfig } from "./servers-config.ts";
export { mcpToolOrigin } from "./mcp-tool.ts";
