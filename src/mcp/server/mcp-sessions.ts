/**
 * The /mcp sessions of 2025-11-25 clients (Streamable HTTP `Mcp-Session-Id`), kept in no isolate's memory.
 * initialize answers, at whatever isolate receives it, with an id that seals the client's capabilities and
 * identity (signing.ts); nothing is stored then. A request naming an id is checked first (an id this
 * Worker did not seal, or whose seal does not hold, gets 404, the transport spec's answer for an unknown
 * session, before any object is addressed), then served by the session's Durable Object (McpSession,
 * named by the id's nonce), which every isolate addresses alike. There the level logging/setLevel set and
 * the end a DELETE made are stored, and a call waiting on its stream gets the answer to its elicitation
 * or sampling request, whichever isolate the client's POST reached. The object rebuilds its session from
 * the id after a restart, so no reload and no number of newer sessions ends one.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { ClientCapabilities, Implementation } from "@modelcontextprotocol/sdk/types.js";
import type { AppEnv } from "../../env.ts";
import { TOOL_LOG_LEVELS, type ToolLogLevel } from "../mcp-vocabulary.ts";
import { seal, sealingKeyOf, unseal } from "../signing.ts";
import { BoundedEventStore } from "./mcp-event-store.ts";

/** What the priming event's `retry` tells a client to wait before it reconnects a closed stream. */
const RETRY_INTERVAL_MS = 1_000;
/** What a session id seals, and for which purpose (a sealed value opens only for its own purpose). */
const SESSION_PURPOSE = "mcp-session";
/**
 * How long a session id is honoured after its initialize. Past it the id gets 404, which tells a client to
 * initialize again, and the session's object erases what it stored (an alarm), so stored sessions are
 * bounded by the sessions of this long, not by all there ever were.
 */
export const MCP_SESSION_LIFETIME_MS = 30 * 24 * 60 * 60_000;
/** The session object's storage keys: its logging level and whether a DELETE ended it. */
const LEVEL_KEY = "level";
const ENDED_KEY = "ended";

/** What an initialize told the server, sealed in the session id. */
export type SealedSession = {
  capabilities: ClientCapabilities;
  clientInfo?: Implementation;
  protocolVersion?: string;
  /** Makes each id unique (two clients that say the same get two sessions) and names the session's object. */
  nonce: string;
  /** When the initialize was answered (ms); ids sealed before this field existed have none. */
  issued?: number;
};

/** The level a session's tools log at: read by each log call, set by logging/setLevel (stored first). */
export type SessionLevels = { get(): ToolLogLevel; set(level: ToolLogLevel): Promise<void> };

/** Serves one request of a 2025-11-25 client: an initialize opens a session, later requests name it. */
export async function serveMcpSession(
  request: Request,
  env: Pick<AppEnv, "MCP_SESSION">,
  createServer: (levels: SessionLevels) => Server,
  secret: CryptoKey,
): Promise<Response> {
  const id = request.headers.get("mcp-session-id");
  if (id) {
    const sealed = await openSessionId(secret, id);
    if (!sealed) return sessionNotFound();
    return env.MCP_SESSION.get(env.MCP_SESSION.idFromName(sealed.nonce)).fetch(request);
  }
  const sealed = await initializeOf(request);
  // A request without a session id that is not an initialize is refused by the transport (400).
  const sessionId = sealed ? await seal(secret, SESSION_PURPOSE, sealed) : crypto.randomUUID();
  // An initialize carries nothing a level applies to; the session's object serves what follows.
  let level: ToolLogLevel = "info";
  const server = createServer({ get: () => level, set: async (l) => void (level = l) });
  const transport = newTransport(() => sessionId);
  await server.connect(transport);
  return transport.handleRequest(request);
}

/** The session a sealed id names, or undefined when this Worker did not issue it. */
export async function openSessionId(secret: CryptoKey, id: string, now = Date.now()): Promise<SealedSession | undefined> {
  const value = (await unseal(secret, SESSION_PURPOSE, id)) as SealedSession | undefined;
  if (!value || typeof value !== "object" || typeof value.capabilities !== "object" || typeof value.nonce !== "string") return undefined;
  if (typeof value.issued === "number" && now - value.issued > MCP_SESSION_LIFETIME_MS) return undefined;
  return value;
}

type Live = { id: string; server: Server; transport: WebStandardStreamableHTTPServerTransport };

/**
 * One session, served inside its Durable Object. Storage is the truth for the level and the end, read on
 * every request (so a second live copy of the object, which only a test's two processes on one state
 * make, sees what the first stored); the live server is the object's copy of the session, kept for the
 * exchanges that span requests.
 */
export class SessionHost {
  /** The live copy, shared by every request from the first on (two at once must not build two). */
  private live?: { id: string; ready: Promise<Live> };
  private level: ToolLogLevel = "info";

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly env: AppEnv,
    private readonly createServer: (levels: SessionLevels) => Server,
  ) {}

  async serve(request: Request): Promise<Response> {
    const id = request.headers.get("mcp-session-id") ?? "";
    const sealed = await openSessionId(await sealingKeyOf(this.env), id);
    if (!sealed) return sessionNotFound();
    const stored = await this.storage.get([LEVEL_KEY, ENDED_KEY]);
    if (stored.get(ENDED_KEY) === true) return sessionNotFound();
    if (request.method === "DELETE") {
      await this.storage.put(ENDED_KEY, true);
      await this.eraseAtExpiry(sealed);
      await this.dropLive();
      return new Response(null, { status: 200 });
    }
    const level = stored.get(LEVEL_KEY);
    this.level = typeof level === "string" && (TOOL_LOG_LEVELS as readonly string[]).includes(level) ? (level as ToolLogLevel) : "info";
    // No await between the check and the set: concurrent requests share one rebuild. (workerd delivers the
    // next request only once this one waits on I/O, which a rebuild does not; that is not leaned on.)
    if (this.live?.id !== id) {
      const ready = this.rebuild(id, sealed);
      this.live = { id, ready };
      // A rebuild that failed is tried again by the next request, not handed to every one after it.
      ready.catch(() => {
        if (this.live?.ready === ready) this.live = undefined;
      });
    }
    const live = await this.live.ready;
    return live.transport.handleRequest(request);
  }

  /** What a session stores goes when its id does: an alarm at the id's expiry (a day on for ids without one). */
  private async eraseAtExpiry(sealed: SealedSession): Promise<void> {
    if ((await this.storage.getAlarm()) !== null) return;
    const at = typeof sealed.issued === "number" ? sealed.issued + MCP_SESSION_LIFETIME_MS : Date.now() + 24 * 60 * 60_000;
    await this.storage.setAlarm(at);
  }

  /** The id has expired: nothing it stored is needed (its requests get 404 before reaching here). */
  async expire(): Promise<void> {
    await this.dropLive();
    await this.storage.deleteAll();
  }

  private async dropLive(): Promise<void> {
    const live = this.live;
    this.live = undefined;
    if (live) await (await live.ready).server.close().catch(() => undefined);
  }

  /**
   * The session rebuilt from its id: a server that knows the client's capabilities and a transport that
   * takes the id as initialized. The SDK keeps both facts private, set only by an initialize it saw itself.
   */
  private async rebuild(id: string, sealed: SealedSession): Promise<Live> {
    const server = this.createServer({
      get: () => this.level,
      set: async (level) => {
        await this.storage.put(LEVEL_KEY, level);
        await this.eraseAtExpiry(sealed);
        this.level = level;
      },
    });
    Object.assign(server, { _clientCapabilities: sealed.capabilities, _clientVersion: sealed.clientInfo });
    const transport = newTransport(() => id);
    await server.connect(transport);
    Object.assign(transport, { sessionId: id, _initialized: true });
    return { id, server, transport };
  }
}

function newTransport(sessionId: () => string): WebStandardStreamableHTTPServerTransport {
  return new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: sessionId,
    eventStore: new BoundedEventStore(),
    retryInterval: RETRY_INTERVAL_MS,
  });
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
    issued: Date.now(),
    capabilities: capabilities as ClientCapabilities,
    ...(params.clientInfo && typeof params.clientInfo === "object" ? { clientInfo: params.clientInfo as Implementation } : {}),
    ...(typeof params.protocolVersion === "string" ? { protocolVersion: params.protocolVersion } : {}),
  };
}

function sessionNotFound(): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32001, message: "Session not found: initialize a new session" }, id: null },
    { status: 404 },
  );
}
