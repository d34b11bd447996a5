/**
 * The registry's view of the deployer's MCP servers (GET /v1/tools): each configured server with the
 * tools it lists now, under the names sessions give them, or why it could not be listed. One listing per
 * isolate is reused for a minute (or until the Worker is authorized: `forgetMcpListing`), so an open
 * route cannot make the Worker hammer the servers. An OAuth server is listed with the Worker's tokens;
 * without them it is `authRequired`, and the listing never starts a flow (nobody is there to follow it).
 * Invariant: never rejects, and never shows a server's headers; why a server could not be listed (which
 * names its URL) only to the operator.
 */
import type { McpCatalogEntry } from "../../wire/tool-list.ts";
import { McpAuthFailedError, McpAuthRequiredError, McpConnection, McpOperatorError } from "./mcp-connection.ts";
import { mcpToolName } from "./mcp-tool.ts";
import { MCP_OAUTH_CALLBACK_PATH, McpOAuthProvider, type McpCredentialVault } from "../oauth/oauth-provider.ts";
import { parseMcpServers, type McpServerConfig } from "./servers-config.ts";

const CACHE_MS = 60_000;
/** An entry as listed, with what anyone but the operator may read of a failure (it names no URL). */
type Listed = { entry: McpCatalogEntry; publicError?: string };
let cached: { raw: string; at: number; listing: Promise<Listed[]> } | undefined;

/** The Worker's credentials for its servers, and its origin (the redirect URL a token was issued for). */
export type McpCatalogCredentials = { vault: McpCredentialVault; origin: string };

/** The servers of `MCP_SERVERS` and their tools; `operator` adds the reasons of failures. */
export async function describeMcpServers(
  raw: string | undefined,
  operator: boolean,
  credentials?: McpCatalogCredentials,
  now = Date.now(),
): Promise<{ servers: McpCatalogEntry[]; error?: string }> {
  const parsed = parseMcpServers(raw);
  if (!parsed.ok) return { servers: [], error: operator ? parsed.message : "MCP_SERVERS is misconfigured" };
  if (parsed.servers.length === 0) return { servers: [] };
  const key = raw ?? "";
  if (!cached || cached.raw !== key || now - cached.at > CACHE_MS) {
    cached = { raw: key, at: now, listing: Promise.all(parsed.servers.map((s) => listServer(s, credentials))) };
  }
  const listed = await cached.listing;
  return {
    servers: listed.map(({ entry, publicError }) =>
      operator || !("error" in entry) ? entry : { ...entry, error: publicError ?? "unreachable" },
    ),
  };
}

/** A user authorized the Worker for a server: this isolate lists again on the next request. */
export function forgetMcpListing(): void {
  cached = undefined;
}

async function listServer(server: McpServerConfig, credentials: McpCatalogCredentials | undefined): Promise<Listed> {
  const requireApproval = server.requireApproval ?? false;
  const auth = credentials
    ? new McpOAuthProvider(server, {
        vault: { ...credentials.vault, saveFlow: async () => undefined },
        redirectUrl: `${credentials.origin}${MCP_OAUTH_CALLBACK_PATH}`,
        stateRoute: "w",
        sessionId: "",
      })
    : undefined;
  const connection = new McpConnection(server, () => undefined, auth);
  try {
    const tools = await connection.listTools();
    const listedTools = tools.map((t) => ({
      name: mcpToolName(server.name, t.name),
      tool: t.name,
      ...(t.description ? { description: t.description } : {}),
    }));
    return { entry: { server: server.name, requireApproval, tools: listedTools } };
  } catch (err) {
    if (err instanceof McpAuthRequiredError && err.authorizationUrl)
      return { entry: { server: server.name, requireApproval, authRequired: true } };
    const error = err instanceof McpOperatorError ? err.operatorMessage : err instanceof Error ? err.message : String(err);
    return {
      entry: { server: server.name, requireApproval, error },
      ...(err instanceof McpAuthFailedError ? { publicError: "could not be authorized" } : {}),
    };
  } finally {
    await connection.close();
  }
}
