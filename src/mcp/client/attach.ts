/**
 * The session's one entry into src/mcp: reads `MCP_SERVERS`, picks the servers the session chose at
 * creation, adds the servers the session brought itself, and returns the SessionMcpTools that fills its
 * ToolStore. Each server gets an OAuth client whose credentials live with the Worker (deployer's servers)
 * or with the session (its own). A broken var or a server removed from it since the session was created
 * is reported (an `error` event), never thrown.
 */
import type { ToolStore } from "../../core/index.ts";
import type { AppEnv } from "../../env.ts";
import { workerVault } from "../oauth/mcp-credentials-object.ts";
import { localVault } from "../oauth/oauth-completion.ts";
import { clientMetadataUrlOf, MCP_OAUTH_CALLBACK_PATH, McpOAuthProvider } from "../oauth/oauth-provider.ts";
import type { McpOAuthStore } from "../oauth/oauth-store.ts";
import { readMcpServers, type McpServerConfig } from "./servers-config.ts";
import { SessionMcpTools, type McpAuthFactory, type McpSessionEvent, type SessionElicit } from "./session-mcp-tools.ts";

export type McpEnv = Pick<AppEnv, "MCP_SERVERS" | "MCP_CREDENTIALS">;

export type McpAttachment = {
  sessionId: string;
  /** The Worker's origin as the session's creator reached it; without it no OAuth flow can start. */
  origin?: string;
  /** Servers the session added (POST …/mcp-servers), as stored. */
  added: readonly McpServerConfig[];
  /** The session's own credential store (servers it added). */
  store: McpOAuthStore;
};

export function attachMcpTools(
  store: ToolStore,
  env: McpEnv,
  chosen: readonly string[] | undefined,
  emit: (event: McpSessionEvent) => void,
  attachment?: McpAttachment,
  elicit?: SessionElicit,
): SessionMcpTools {
  const authFor: McpAuthFactory = (server, source) => {
    if (!attachment?.origin) return undefined;
    const session = source === "session";
    const clientMetadataUrl = clientMetadataUrlOf(attachment.origin);
    return new McpOAuthProvider(server, {
      vault: session ? localVault(attachment.store) : workerVault(env),
      redirectUrl: `${attachment.origin}${MCP_OAUTH_CALLBACK_PATH}`,
      ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
      stateRoute: session ? `s.${attachment.sessionId}` : "w",
      sessionId: attachment.sessionId,
    });
  };
  // What every session gets, whatever MCP_SERVERS holds: its own servers and its user's answers to them.
  const common = { store, emit, authFor, added: attachment?.added ?? [], elicit };
  const parsed = readMcpServers(env);
  if (!parsed.ok) return new SessionMcpTools({ ...common, problems: [`${parsed.message}; no MCP tools are available`] });
  const names = chosen ?? parsed.servers.map((s) => s.name);
  const servers: McpServerConfig[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const server = parsed.servers.find((s) => s.name === name);
    if (server) servers.push(server);
    else missing.push(name);
  }
  const problems =
    missing.length > 0 ? [`MCP server(s) ${missing.join(", ")} are no longer in MCP_SERVERS; their tools are unavailable`] : [];
  return new SessionMcpTools({ ...common, servers, problems });
}

export { SessionMcpTools } from "./session-mcp-tools.ts";
export { parseMcpServers, selectMcpServers, type McpServerConfig } from "./servers-config.ts";
export { mcpToolOrigin } from "./mcp-tool.ts";
