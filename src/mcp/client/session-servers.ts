/**
 * Servers a session brings (POST/DELETE /v1/sessions/:id/mcp-servers): checked against MCP_ALLOWED_URLS
 * (allowed-urls.ts), capped per session, stored in the session's meta row (their headers and a
 * pre-registered client's secret are secrets: never returned, the snapshot shows name and URL only) and
 * handed to SessionMcpTools. Called by AgentSession; answers SessionResult values. Removing a server forgets
 * its OAuth credentials too.
 */
import type { SessionResult } from "../../session/session-result.ts";
import { ok, refuse } from "../../session/session-result.ts";
import { isAllowedMcpUrl, readAllowedUrls } from "./allowed-urls.ts";
import type { McpOAuthStore } from "../oauth/oauth-store.ts";
import { MCP_SERVER_NAME_PATTERN, type McpServerConfig } from "./servers-config.ts";
import type { McpServerView, SessionMcpTools } from "./session-mcp-tools.ts";

/** Servers one session may add: each is a connection the session keeps open and lists before each run. */
export const MAX_SESSION_MCP_SERVERS = 8;
/** Headers of one added server, names and values together. */
export const MAX_SERVER_HEADER_BYTES = 8_192;

const STORED_KEY = "mcpAddedServers";

/** The narrow slice of the session's meta table this module needs. */
export type MetaRows = { read<T>(key: string): T | undefined; write(key: string, value: unknown): void };

/** `clientId` (and `clientSecret`): a client the user registered beforehand, for servers without dynamic registration. */
export type AddServerRequest = { name: string; url: string; headers?: Record<string, string>; clientId?: string; clientSecret?: string };

export const readAddedServers = (meta: MetaRows): McpServerConfig[] => meta.read<McpServerConfig[]>(STORED_KEY) ?? [];

export async function addSessionServer(
  meta: MetaRows,
  mcp: SessionMcpTools,
  env: { MCP_ALLOWED_URLS?: string | undefined },
  request: AddServerRequest,
): Promise<SessionResult<McpServerView>> {
  if (!MCP_SERVER_NAME_PATTERN.test(request.name))
    return refuse("bad_request", "name must start with a letter and use at most 32 letters, digits, _ or -");
  if (!isAllowedMcpUrl(request.url, readAllowedUrls(env))) {
    return refuse("url_not_allowed", "This URL is not among the MCP server URLs this Worker allows sessions to add (MCP_ALLOWED_URLS)");
  }
  const headerBytes = Object.entries(request.headers ?? {}).reduce((n, [k, v]) => n + k.length + v.length, 0);
  if (headerBytes > MAX_SERVER_HEADER_BYTES) return refuse("bad_request", `headers are over ${MAX_SERVER_HEADER_BYTES} bytes`);
  if (mcp.has(request.name)) return refuse("name_taken", `An MCP server named "${request.name}" is already in this session`);
  const stored = readAddedServers(meta);
  if (stored.length >= MAX_SESSION_MCP_SERVERS)
    return refuse("too_many", `A session may add at most ${MAX_SESSION_MCP_SERVERS} MCP servers; remove one first`);
  if (request.clientSecret !== undefined && request.clientId === undefined) return refuse("bad_request", "clientSecret needs its clientId");
  const server: McpServerConfig = {
    name: request.name,
    url: request.url,
    ...(request.headers ? { headers: request.headers } : {}),
    ...(request.clientId !== undefined ? { clientId: request.clientId } : {}),
    ...(request.clientSecret !== undefined ? { clientSecret: request.clientSecret } : {}),
  };
  meta.write(STORED_KEY, [...stored, server]);
  await mcp.add(server);
  return ok(mcp.describe().find((s) => s.name === server.name)!);
}

export async function removeSessionServer(
  meta: MetaRows,
  mcp: SessionMcpTools,
  credentials: McpOAuthStore,
  name: string,
): Promise<SessionResult<{ removed: string }>> {
  const stored = readAddedServers(meta);
  if (!stored.some((s) => s.name === name)) return refuse("not_found", `This session added no MCP server named "${name}"`);
  meta.write(
    STORED_KEY,
    stored.filter((s) => s.name !== name),
  );
  credentials.forget(name);
  await mcp.remove(name);
  return ok({ removed: name });
}
