/**
 * The /mcp sessions of 2025-11-25 clients (Streamable HTTP `Mcp-Session-Id`), kept nowhere but in the id
 * itself: initialize answers with an id that seals the client's capabilities and identity (signing.ts),
 * and any isolate that receives a request naming such an id rebuilds the session from it. So a client's
 * requests may land on any isolate, before or after a reload, and no number of newer sessions ends an
 * older one. An isolate keeps the sessions it served lately (at most MAX_MCP_SESSIONS, idle ones expire)
 * only as a cache: their live server carries what a single exchange spans (a call's own stream, an
 * elicitation answered on that stream, the replay buffer of a stream the client resumes at the same
 * isolate). An id this Worker did not issue (or whose seal does not hold) gets 404, the transport spec's
 * answer for an unknown session. DELETE ends the session at the isolate that receives it (404 there from
 * then on); another isolate, holding nothing, would still accept the id: a client that ended a session
 * does not use its id again. logging/setLevel sets the level of the isolate's copy; another isolate starts at "info".
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { ClientCapabilities, Implementation } from "@modelcontextprotocol/sdk/types.js";
import { BoundedEventStore } from "./mcp-event-store.ts";
import { seal, unseal } from "../signing.ts";

export const MAX_MCP_SESSIONS = 100;
/** A client that has said nothing for this long to this isolate: its copy and replay buffer are freed. */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** What the priming event's `retry` tells a client to wait before it reconnects a closed stream. */
const RETRY_INTERVAL_MS = 1_000;
/** What a session id seals, and for which purpose (a sealed value opens only for its own purpose). */
const SESSION_PURPOSE = "mcp-session";

/** What an initialize told the server, sealed in the session id. */
export type SealedSession = {
  capabilities: ClientCapabilities;
  clientInfo?: Implementation;
  protocolVersion?: string;
  /** Makes each id unique: two clients that say the same get two sessions. */
  nonce: string;
};

type Entry = { transport: WebStandardStreamableHTTPServerTransport; server: Server; lastUsed: number };

const sessions = new Map<string, Entry>();
/** Ids a DELETE ended at this isolate (bounded, oldest forgotten first): they answer 404 here from then on. */
const ended = new Set<string>();
const MAX_ENDED_SESSIONS = 1_000;

/** Serves one request of a 2025-11-25 client: an initialize opens a session, later requests name it. */
export async function serveMcpSession(
  request: Request,
  createServer: () => Server,
  secret: CryptoKey,
  now = Date.now(),
): Promise<Response> {
  expireIdle(now);
  const id = request.headers.get("mcp-session-id");
  if (id) {
    if (ended.has(id)) return jsonRpcError(404, -32001, "Session not found: initialize a new session");
    if (request.method === "DELETE") remember(id);
    let entry = sessions.get(id);
    if (!entry) {
      const sealed = await openSessionId(secret, id);
      if (!sealed) return jsonRpcError(404, -32001, "Session not found: initialize a new session");
      // Nothing to end: the copy held here (none) is all there is.
      if (request.method === "DELETE") return new Response(null, { status: 200 });
      entry = await rebuild(id, sealed, createServer);
    }
    entry.lastUsed = now;
    // Most recently used last, so the first key is the one to evict.
    sessions.delete(id);
    sessions.set(id, entry);
    return entry.transport.handleRequest(request);
  }
  const sealed = await initializeOf(request);
  // A request without a session id that is not an initialize is refused by the transport (400).
  const sessionId = sealed ? await seal(secret, SESSION_PURPOSE, sealed) : crypto.randomUUID();
  const server = createServer();
  const transport = newTransport(server, () => sessionId);
  await server.connect(transport);
  return transport.handleRequest(request);
}

/** The session a sealed id names, or undefined when this Worker did not issue it. */
export async function openSessionId(secret: CryptoKey, id: string): Promise<SealedSession | undefined> {
  const value = (await unseal(secret, SESSION_PURPOSE, id)) as SealedSession | undefined;
  return value && typeof value === "object" && typeof value.capabilities === "object" ? value : undefined;
}

/** Sessions held now (tests check the bound). */
export const mcpSessionCount = (): number => sessions.size;

function newTransport(server: Server, sessionId: () => string): WebStandardStreamableHTTPServerTransport {
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: sessionId,
    eventStore: new BoundedEventStore(),
    retryInterval: RETRY_INTERVAL_MS,
    onsessioninitialized: (id) => {
      while (sessions.size >= MAX_MCP_SESSIONS) close(sessions.keys().next().value!);
      sessions.set(id, { transport, server, lastUsed: Date.now() });
    },
    onsessionclosed: (id) => {
      sessions.delete(id);
    },
  });
  return transport;
}

/**
 * A session another isolate (or this one, before a reload or an eviction) opened, rebuilt from its id: a
 * server that knows the client's capabilities and a transport that takes the id as initialized. The SDK
 * keeps both facts private, set only by an initialize it saw itself.
 */
async function rebuild(id: string, sealed: SealedSession, createServer: () => Server): Promise<Entry> {
  const server = createServer();
  Object.assign(server, { _clientCapabilities: sealed.capabilities, _clientVersion: sealed.clientInfo });
  const transport = newTransport(server, () => id);
  await server.connect(transport);
  Object.assign(transport, { sessionId: id, _initialized: true });
  while (sessions.size >= MAX_MCP_SESSIONS) close(sessions.keys().next().value!);
  const entry = { transport, server, lastUsed: Date.now() };
  sessions.set(id, entry);
  return entry;
}

/** What an initialize request (alone in its body) tells the server, or undefined for any other request. */
async function initializeOf(request: Request): Promise<SealedSession | undefined> {
  if (request.method !== "POST") return undefined;
  let body: unknown;
  try {
    body = await request.clone().json();
  } catch {
    return undefined;
  }
  const message = Array.isArray(body) && body.length === 1 ? body[0] : body;
  if (!message || typeof message !== "object" || (message as { method?: unknown }).method !== "initialize") return undefined;
  const params = (message as { params?: Record<string, unknown> }).params ?? {};
  const capabilities = params.capabilities && typeof params.capabilities === "object" ? params.capabilities : {};
  return {
    nonce: crypto.randomUUID(),
    capabilities: capabilities as ClientCapabilities,
    ...(params.clientInfo && typeof params.clientInfo === "object" ? { clientInfo: params.clientInfo as Implementation } : {}),
    ...(typeof params.protocolVersion === "string" ? { protocolVersion: params.protocolVersion } : {}),
  };
}

function remember(id: string): void {
  ended.add(id);
  if (ended.size > MAX_ENDED_SESSIONS) ended.delete(ended.values().next().value!);
}

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
