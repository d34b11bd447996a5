/**
 * The Streamable HTTP transports of a test MCP server, one per MCP session: a request naming a known
 * session gets that session's transport; any other gets a new transport connected to a new server,
 * kept under its session id once the client initializes.
 */
import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

export class McpSessionTransports {
  private readonly bySession = new Map<string, StreamableHTTPServerTransport>();

  constructor(private readonly newServer: () => { connect(transport: Transport): Promise<void> }) {}

  has(sessionId: string): boolean {
    return this.bySession.has(sessionId);
  }

  /** `sessionId`: the request's Mcp-Session-Id header. */
  async forRequest(sessionId: string | string[] | undefined): Promise<StreamableHTTPServerTransport> {
    const known = typeof sessionId === "string" ? this.bySession.get(sessionId) : undefined;
    if (known) return known;
    const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.bySession.set(id, created),
    });
    await this.newServer().connect(created);
    return created;
  }
}
