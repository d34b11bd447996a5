/**
 * Which names a session's `requireApproval` list may hold: "*", a bundled tool, a tool the session has
 * now (its drafts included), or a tool of an MCP server it chose. An MCP server may list a tool later
 * (tools/list_changed), so any `<server>_…` name of a chosen server is accepted. Checked by the Worker at
 * session creation (no tool store yet) and by the session on PATCH.
 */
import { mcpToolName } from "../../mcp/client/mcp-tool.ts";
import { bundledToolNames } from "../../tools/catalog.ts";

export function isApprovalName(name: string, sessionTools: { has(name: string): boolean }, mcpServers: readonly string[]): boolean {
  if (name === "*" || sessionTools.has(name) || bundledToolNames().includes(name)) return true;
  return mcpServers.some((server) => name.startsWith(mcpToolName(server, "")));
}
