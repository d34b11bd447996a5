/**
 * The /mcp sessions of this isolate (Streamable HTTP `Mcp-Session-Id`): an initialize request opens one
 * (its own server, transport and replay buffer), later requests carrying the id reach it, DELETE ends it.
 * Bounded: at most MAX_MCP_SESSIONS, the least recently used closed first, and idle ones expire. A
 * request naming an id this isolate does not hold gets 404, the transport spec's answer for an ended
 * session, after which a client should initialize again (the MCP TypeScript SDK's client does not by
 * itself: its application must connect anew).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { BoundedEventStore } from "./mcp-event-store.ts";

export const MAX_MCP_SESSIONS = 100;
/** A client that has said nothing for this long has gone; its replay buffer is freed. */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** What the priming event's `retry` tells a client to wait before it reconnects a closed stream. */
const RETRY_INTERVAL_MS = 1_000;

type Entry = { transport: WebStandardStreamableHTTPServerTransport; server: Server; lastUsed: number };

const sessions = new Map<string, Entry>();

/** Serves one request of the transport, opening a session on initialize. */
export async function serveMcpSession(request: Request, createServer: () => Server, now = Date.now()): Promise<Response> {
  expireIdle(now);
  const id = request.headers.get("mcp-session-id");
  if (id) {
    const entry = sessions.get(id);
    if (!entry) return jsonRpcError(404, -32001, "Session not found: initialize a new session");
    entry.lastUsed = now;
    // Most recently used last, so the first key is the one to evict.
    sessions.delete(id);
    sessions.set(id, entry);
    return entry.transport.handleRequest(request);
  }
  const server = createServer();
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    eventStore: new BoundedEventStore(),
    retryInterval: RETRY_INTERVAL_MS,
    onsessioninitialized: (sessionId) => {
      while (sessions.size >= MAX_MCP_SESSIONS) close(sessions.keys().next().value!);
      sessions.set(sessionId, { transport, server, lastUsed: Date.now() });
    },
    onsessionclosed: (sessionId) => {
      sessions.delete(sessionId);
    },
  });
  await server.connect(transport);
  // A request without a session id that is not an initialize is refused by the transport (400).
  return transport.handleRequest(request);
}

/** Sessions held now (tests check the bound). */
export const mcpSessionCount = (): number => sessions.size;

function expireIdle(now: number): void {
  for (const [id, entry] of sessions) {
    if (now - entry.lastUsed > MCP_SESSION_IDLE_MS) close(id);
  }
}

function close(id: string): void {
  const entry = sessions.get(id);
  sessions.delete(id);
  void entry?.server.close().catch(() => undefined);
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
