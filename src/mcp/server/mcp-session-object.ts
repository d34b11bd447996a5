/**
 * McpSession: the Durable Object of one 2025-11-25 /mcp session, named by the nonce its sealed id
 * carries (mcp-sessions.ts). Every request naming the session reaches this one object wherever it lands,
 * so what the handshake revision ties to a session needs no isolate's memory: the level logging/setLevel
 * set and the end a DELETE made live in the object's storage (two small keys, read on every request), and
 * an exchange that spans requests (an elicitation or sampling answer POSTed while the call waits on its
 * stream, a stream resumed with Last-Event-ID) reaches the live call here. The object's memory holds only
 * that live exchange; after a restart the session is rebuilt from its id and its storage. An id lives
 * MCP_SESSION_LIFETIME_MS from its initialize; an alarm then erases what its session stored.
 * The SDK loads on the first request (lazy import), as the /mcp route does.
 */
import { DurableObject } from "cloudflare:workers";
import type { AppEnv } from "../../env.ts";
import type { SessionHost } from "./mcp-sessions.ts";

export class McpSession extends DurableObject<AppEnv> {
  private host?: SessionHost;

  override async fetch(request: Request): Promise<Response> {
    if (!this.host) {
      const { SessionHost } = await import("./mcp-sessions.ts");
      const { createMcpServer } = await import("./mcp-server.ts");
      this.host ??= new SessionHost(this.ctx.storage, this.env, (levels) => createMcpServer(this.env, levels));
    }
    return this.host.serve(request);
  }

  /** Set when the session first stored something: its id has expired, so what it stored goes. */
  override async alarm(): Promise<void> {
    if (this.host) await this.host.expire();
    else await this.ctx.storage.deleteAll();
  }
}
