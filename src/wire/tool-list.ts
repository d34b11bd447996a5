/**
 * The tool registry as GET /v1/tools answers it: bundled tools, written tools with their review status,
 * and the deployer's MCP servers with the tools they list now (or why they could not be listed). The
 * route declares its answer with this type and the client SDK re-exports it.
 */

export type ToolStatus = "bundled" | "pending" | "deployed" | "rejected" | (string & {});

/** One tool of the registry; written tools carry more fields (version, author, draft, error, …). */
export type ToolEntry = { name: string; status: ToolStatus; [key: string]: unknown };

/** A configured MCP server: its tools under the names sessions give them, or why they are not listed. */
export type McpCatalogEntry =
  | { server: string; requireApproval: boolean | string[]; tools: { name: string; tool: string; description?: string }[] }
  | { server: string; requireApproval: boolean | string[]; error: string }
  /** The server takes OAuth and no user has authorized the Worker yet (a session's Connect link does). */
  | { server: string; requireApproval: boolean | string[]; authRequired: true };

export type ToolList = {
  bundled: ToolEntry[];
  /** Deployed written tools for anyone; with the API token, every written tool (drafts included). */
  written?: ToolEntry[];
  mcp?: McpCatalogEntry[];
  /** Set when MCP_SERVERS itself cannot be read (the reason only for the operator). */
  mcpError?: string;
  /** Set when the written-tool index is larger than one listing reads: `written` is its first part. */
  writtenPartial?: string;
  /** Whether the Worker can run drafts of written tools (it has a LOADER binding). */
  draftRuntime?: boolean;
};
