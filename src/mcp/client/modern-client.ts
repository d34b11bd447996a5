/**
 * The client side of revision 2026-07-28, for servers that speak it: no handshake, each request carries
 * the envelope (MCP-Protocol-Version and Mcp-Method headers, `_meta` with the version, our capabilities
 * and identity). `server/discover` tells whether a server speaks it (McpConnection falls back to the
 * handshake when not). A tool call that needs input (a Multi Round-Trip Request, `input_required`) is
 * answered here: elicitations go to the same handler as a handshake server's elicitation/create (the
 * session's `mcpElicitation`), roots are none, sampling is declined (the client declares none), and the
 * call is retried with the answers and the server's `requestState`, for at most MAX_ROUNDS rounds.
 * Progress notifications on a call's SSE response reach `onProgress`. Pure fetch: no SDK.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpCallOptions, McpElicitationHandler } from "./mcp-connection.ts";
import { type ParamHeaders, paramHeaderValues, paramHeadersOf } from "./param-headers.ts";

export const MODERN_PROTOCOL_VERSION = "2026-07-28";
/** A server that keeps asking past this many rounds is broken, not thorough. */
const MAX_ROUNDS = 10;
const CLIENT_INFO = { name: "edge-agent", version: "0.1.0" };

/** A JSON-RPC error a 2026-07-28 server answered, with the HTTP status it came with. */
export class McpRpcError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** -32022: the server does not take the version asked; its data lists the ones it does. */
const UNSUPPORTED_VERSION = -32022;
/** SEP-2243: a standard or Mcp-Param header that does not say what the body says. */
const HEADER_MISMATCH = -32020;
let nextId = 1;

type Envelope = {
  url: URL;
  /** Headers of every request (the bearer token among them), read anew for each. */
  headers: () => Promise<Record<string, string>>;
  onElicitation?: McpElicitationHandler;
  /**
   * A 401, or a 403 asking for more scope: run the OAuth flow; resolves when the request may be sent
   * again with new tokens, throws when the user must authorize first.
   */
  onUnauthorized?: (response: Response) => Promise<void>;
};
type InputRequest = { method?: string; params?: Record<string, unknown> };

export class ModernMcpClient {
  /** The x-mcp-header marks of the tools this connection listed, by tool. */
  private readonly paramHeaders = new Map<string, ParamHeaders>();
  /** Whether this connection has listed the tools (so it knows every tool's marks). */
  private listed = false;

  private constructor(private readonly envelope: Envelope) {}

  /** A client for `url` when its server speaks 2026-07-28 (discovered), else undefined; auth refusals throw. */
  static async discover(envelope: Envelope, signal?: AbortSignal): Promise<ModernMcpClient | undefined> {
    const client = new ModernMcpClient(envelope);
    // A server may refuse a first request's version and name the ones it takes: ask again when ours is one.
    for (let attempt = 1; attempt <= 2; attempt++) {
      try {
        const result = await client.request("server/discover", {}, { signal });
        const versions = result.supportedVersions;
        return Array.isArray(versions) && versions.includes(MODERN_PROTOCOL_VERSION) ? client : undefined;
      } catch (err) {
        // Refusals, the OAuth flow's own failures and the network's: McpConnection tells them apart.
        if (!(err instanceof McpRpcError) || err.status === 401 || err.status === 403) throw err;
        const supported =
          err instanceof McpRpcError && err.code === UNSUPPORTED_VERSION ? (err.data as { supported?: unknown })?.supported : undefined;
        if (attempt === 1 && Array.isArray(supported) && supported.includes(MODERN_PROTOCOL_VERSION)) continue;
        // Anything else (404, -32601, -32020, a handshake server's 400, HTML): not this revision.
        return undefined;
      }
    }
    return undefined;
  }

  /** Nothing to end: no connection outlives a request. */
  async close(): Promise<void> {}

  /** Tools whose x-mcp-header marks are malformed are left out (param-headers.ts); the others' marks are kept. */
  async listTools(cursor?: string): Promise<{ tools: Tool[]; nextCursor?: string }> {
    const result = await this.request("tools/list", cursor ? { cursor } : {});
    const tools: Tool[] = [];
    for (const tool of (result.tools ?? []) as Tool[]) {
      const marks = paramHeadersOf(tool.inputSchema);
      if (!marks.ok) continue;
      if (marks.headers.size > 0) this.paramHeaders.set(tool.name, marks.headers);
      else this.paramHeaders.delete(tool.name);
      tools.push(tool);
    }
    if (!cursor) this.listed = true;
    return { tools, ...(typeof result.nextCursor === "string" ? { nextCursor: result.nextCursor } : {}) };
  }

  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    let retry: { inputResponses: Record<string, unknown>; requestState?: string } | undefined;
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const result = await this.callOnce(name, { name, arguments: args, ...(retry ?? {}) }, args, options);
      if (result.resultType !== "input_required") return result as CallToolResult;
      const requests = (result.inputRequests ?? {}) as Record<string, InputRequest>;
      const inputResponses: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(requests)) inputResponses[key] = await this.answer(request, options.signal);
      retry = { inputResponses, ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {}) };
    }
    throw new Error(`the server asked for input more than ${MAX_ROUNDS} times in one call`);
  }

  /**
   * One round of a call, with the Mcp-Param headers its tool's marks ask for. A connection that calls
   * without having listed (the session listed at another time) learns the marks when the server refuses
   * the headers (-32020) and sends the call once more.
   */
  private async callOnce(
    name: string,
    params: Record<string, unknown>,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<Record<string, unknown>> {
    const headers = () => paramHeaderValues(this.paramHeaders.get(name) ?? new Map(), args);
    try {
      return await this.request("tools/call", params, options, false, headers());
    } catch (err) {
      if (this.listed || !(err instanceof McpRpcError) || err.code !== HEADER_MISMATCH) throw err;
      let cursor: string | undefined;
      do cursor = (await this.listTools(cursor)).nextCursor;
      while (cursor);
      return this.request("tools/call", params, options, false, headers());
    }
  }

  /** One input request's answer, in the shape its method's result has. */
  private async answer(request: InputRequest, signal?: AbortSignal): Promise<unknown> {
    const params = request.params ?? {};
    switch (request.method) {
      case "elicitation/create": {
        const handler = this.envelope.onElicitation;
        if (!handler || params.mode === "url" || typeof params.requestedSchema !== "object") return { action: "decline" };
        return handler(
          { message: String(params.message ?? ""), requestedSchema: params.requestedSchema as Record<string, unknown> },
          signal ?? new AbortController().signal,
        );
      }
      case "roots/list":
        return { roots: [] };
      default:
        throw new Error(`the server asked for ${String(request.method)}, which this client does not offer`);
    }
  }

  /** Sends one request with the envelope; the result, or an McpRpcError. */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: McpCallOptions = {},
    authorized = false,
    extraHeaders: Record<string, string> = {},
  ): Promise<Record<string, unknown>> {
    const token = options.onProgress ? crypto.randomUUID() : undefined;
    const body = {
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
          "io.modelcontextprotocol/clientCapabilities": this.envelope.onElicitation ? { elicitation: { form: {} } } : {},
          "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
          ...(token ? { progressToken: token } : {}),
        },
      },
    };
    const name: Record<string, string> = method === "tools/call" && typeof params.name === "string" ? { "mcp-name": params.name } : {};
    const response = await fetch(this.envelope.url, {
      method: "POST",
      headers: {
        ...(await this.envelope.headers()),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
        "mcp-method": method,
        ...name,
        ...extraHeaders,
      },
      body: JSON.stringify(body),
      signal: options.signal,
    });
    const askedScope = response.status === 403 && /error="?insufficient_scope/.test(response.headers.get("www-authenticate") ?? "");
    if ((response.status === 401 || askedScope) && this.envelope.onUnauthorized && !authorized) {
      await response.body?.cancel();
      await this.envelope.onUnauthorized(response);
      return this.request(method, params, options, true, extraHeaders);
    }
    const messages = await messagesOf(response);
    for (const m of messages) {
      if (m.method === "notifications/progress" && options.onProgress) {
        const p = (m.params ?? {}) as { progress?: number; total?: number; message?: string };
        if (typeof p.progress === "number") options.onProgress({ progress: p.progress, total: p.total, message: p.message });
      }
    }
    const answer = messages.find((m) => "result" in m || "error" in m);
    if (answer && "result" in answer && response.ok) return (answer.result ?? {}) as Record<string, unknown>;
    const error = (answer?.error ?? {}) as { code?: number; message?: string; data?: unknown };
    throw new McpRpcError(response.status, error.code, error.message ?? `HTTP ${response.status}`, error.data);
  }
}

/** The JSON-RPC messages of a response, whether a JSON body or an SSE stream. */
async function messagesOf(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const messages: Record<string, unknown>[] = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      if (!data.trim()) continue;
      try {
        messages.push(JSON.parse(data));
      } catch {
        // not a message (a comment or a keep-alive)
      }
    }
    return messages;
  }
  try {
    const body = JSON.parse(text) as unknown;
    return body && typeof body === "object" && !Array.isArray(body) ? [body as Record<string, unknown>] : [];
  } catch {
    return [];
  }
}
