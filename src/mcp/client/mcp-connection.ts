/**
 * One connection to a remote MCP server: revision 2026-07-28 when `server/discover` says the server
 * speaks it (modern-client.ts, stateless), else the official SDK client's handshake: Streamable HTTP
 * first, the older HTTP+SSE transport when that fails. Connects lazily, lists every page of tools, calls tools
 * with progress, cancellation (the SDK sends notifications/cancelled on abort) and the server's
 * list_changed notifications. Used by SessionMcpTools; a dropped or failed connection is forgotten and
 * re-opened by the next use. Tool output schemas are checked with @cfworker/json-schema (no eval).
 * The SDK loads on the first connection (client-sdk.ts): start-up CPU (the SDK at load cost ~13 of ~31 ms).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpRpcError, ModernMcpClient } from "./modern-client.ts";
import type { McpOAuthProvider } from "../oauth/oauth-provider.ts";
import type { McpServerConfig } from "./servers-config.ts";

type ClientSdk = typeof import("./client-sdk.ts");

/** Connecting (both transports together) may take this long before the server counts as unreachable. */
export const MCP_CONNECT_TIMEOUT_MS = 10_000;
/** The SDK's own per-request timeout; the tool pipeline's timeout (and abort) normally ends a call first. */
const SDK_REQUEST_TIMEOUT_MS = 15 * 60_000;
/** A server may page its tool list; more pages than this is a broken server, not a big one. */
const MAX_TOOL_PAGES = 20;

export type McpProgress = { progress: number; total?: number; message?: string };

export type McpCallOptions = { signal?: AbortSignal; onProgress?: (p: McpProgress) => void };

/** A server's form elicitation (elicitation/create), and the answer a human gave (or cancel). */
export type McpElicitation = { message: string; requestedSchema: Record<string, unknown> };
export type McpElicitationAnswer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
/** `signal` aborts when the server cancels its request or the connection ends. */
export type McpElicitationHandler = (request: McpElicitation, signal: AbortSignal) => Promise<McpElicitationAnswer>;

const CLIENT_INFO = { name: "edge-agent", version: "0.1.0" };

export class McpConnection {
  private client?: Promise<Client | ModernMcpClient>;

  constructor(
    readonly server: McpServerConfig,
    /** Called with the server's new tool list after notifications/tools/list_changed. */
    private readonly onToolsChanged: (tools: Tool[]) => void,
    /** The server's OAuth client (src/mcp/oauth/oauth-provider.ts); without one a 401 is a plain failure. */
    readonly auth?: McpOAuthProvider,
    /** Given: the client declares form elicitation (defaults applied) and hands each request here. */
    private readonly onElicitation?: McpElicitationHandler,
  ) {}

  async listTools(): Promise<Tool[]> {
    const client = await this.connect();
    if (this.auth) this.auth.authAttempted = false; // a flow that ran from here on ran for this listing
    try {
      return await this.listPages(client);
    } catch (err) {
      // A 401 on tools/list (a token revoked after connecting) names the server like any other failure.
      throw (
        authRefusal(await import("./client-sdk.ts"), this.server, err, this.auth) ??
        this.authFailure(err) ??
        new Error(`MCP server "${this.server.name}": ${reason(err)}`)
      );
    }
  }

  private async listPages(client: Client | ModernMcpClient): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result =
        client instanceof ModernMcpClient ? await client.listTools(cursor) : await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    const client = await this.connect();
    if (client instanceof ModernMcpClient) {
      try {
        return await client.callTool(name, args, options);
      } catch (err) {
        throw authRefusal(await import("./client-sdk.ts"), this.server, err, this.auth) ?? err;
      }
    }
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal: options.signal,
        timeout: SDK_REQUEST_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: options.onProgress
          ? (p) => options.onProgress!({ progress: p.progress, total: p.total, message: p.message })
          : undefined,
      });
      return result as CallToolResult;
    } catch (err) {
      // Tokens revoked, or a tool that needs more scope than was granted (403 insufficient_scope, step-up).
      throw authRefusal(await import("./client-sdk.ts"), this.server, err, this.auth) ?? err;
    }
  }

  /** Forgets the connection after the user authorized: the next use connects with the new tokens. */
  async reconnect(): Promise<void> {
    await this.close();
  }

  async close(): Promise<void> {
    const pending = this.client;
    this.client = undefined;
    await pending?.then((c) => c.close()).catch(() => undefined);
  }

  private connect(): Promise<Client | ModernMcpClient> {
    if (!this.client) {
      const connecting = this.open();
      this.client = connecting;
      // A failed attempt is not cached: the next use tries again.
      connecting.catch(() => {
        if (this.client === connecting) this.client = undefined;
      });
    }
    return this.client;
  }

  private async open(): Promise<Client | ModernMcpClient> {
    const url = new URL(this.server.url);
    const headers = this.server.headers ?? {};
    const deadline = AbortSignal.timeout(MCP_CONNECT_TIMEOUT_MS);
    this.auth?.beginConnection();
    const sdk = await import("./client-sdk.ts");
    const { SSEClientTransport, StreamableHTTPClientTransport } = sdk;
    let modern: ModernMcpClient | undefined;
    try {
      modern = await ModernMcpClient.discover(
        {
          url,
          headers: () => this.requestHeaders(),
          ...(this.onElicitation ? { onElicitation: this.onElicitation } : {}),
          ...(this.auth ? { onUnauthorized: (response: Response) => this.authorize(sdk, url, response) } : {}),
        },
        deadline,
      );
    } catch (err) {
      // The server wants credentials (the OAuth flow ran, or there is none): the handshake would only fail again.
      const refused = authRefusal(sdk, this.server, err, this.auth) ?? this.authFailure(err);
      if (refused) throw refused;
      // Otherwise (unreachable, or not this revision) the handshake tries, and names the failure.
    }
    if (modern) return modern;
    let streamableError: unknown;
    try {
      const auth = this.auth;
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers },
        authProvider: auth,
        ...(auth ? { fetch: noticingStepUp(sdk, auth) } : {}),
      });
      return await this.openWith(transport, deadline);
    } catch (err) {
      streamableError = err;
    }
    // A server that asks for credentials speaks Streamable HTTP: the legacy transport would only fail again.
    const refusal = authRefusal(sdk, this.server, streamableError, this.auth);
    if (refusal) throw refusal;
    const failure = this.authFailure(streamableError);
    if (failure) throw failure;
    try {
      const transport = new SSEClientTransport(url, {
        requestInit: { headers },
        // The EventSource of the legacy transport takes headers only through its fetch.
        eventSourceInit: { fetch: (input, init) => fetch(input, { ...init, headers: { ...headersOf(init), ...headers } }) },
      });
      return await this.openWith(transport, deadline);
    } catch (err) {
      throw new McpUnreachableError(
        `MCP server "${this.server.name}" is unreachable`,
        `MCP server "${this.server.name}" (${url.origin}${url.pathname}) is unreachable: Streamable HTTP: ${reason(streamableError)}; HTTP+SSE: ${reason(err)}`,
      );
    }
  }

  /** The OAuth flow after a 401 (or a 403 asking for more scope), as the SDK's transport runs it. */
  private async authorize(sdk: ClientSdk, url: URL, response: Response): Promise<void> {
    const auth = this.auth!;
    const { resourceMetadataUrl, scope, error } = sdk.extractWWWAuthenticateParams(response);
    let asked = scope;
    if (response.status === 403 && error === "insufficient_scope") {
      // SEP-2350: ask for what was granted and what is challenged, or the new grant loses the old scope.
      asked = await auth.stepUpScope(scope);
      auth.stepUp();
    }
    const result = await sdk.auth(auth, { serverUrl: url, resourceMetadataUrl, scope: asked });
    if (result !== "AUTHORIZED") throw new sdk.UnauthorizedError();
  }

  /** The configured headers, with the bearer token when the server's OAuth client holds one. */
  private async requestHeaders(): Promise<Record<string, string>> {
    const tokens = await this.auth?.tokens();
    return { ...(this.server.headers ?? {}), ...(tokens ? { authorization: `Bearer ${tokens.access_token}` } : {}) };
  }

  /** When the SDK's OAuth flow ran and `err` ended it (metadata, registration, a resource not this server's). */
  private authFailure(err: unknown): McpAuthFailedError | undefined {
    if (!this.auth?.authAttempted) return undefined;
    const url = new URL(this.server.url);
    return new McpAuthFailedError(
      `MCP server "${this.server.name}" could not be authorized`,
      `MCP server "${this.server.name}" (${url.origin}${url.pathname}): the OAuth flow failed: ${reason(err)}`,
    );
  }

  private async openWith(transport: Transport, deadline: AbortSignal): Promise<Client> {
    const { Client, CfWorkerJsonSchemaValidator, ElicitRequestSchema } = await import("./client-sdk.ts");
    const client = new Client(CLIENT_INFO, {
      capabilities: this.onElicitation ? { elicitation: { form: { applyDefaults: true } } } : {},
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (!error && tools) this.onToolsChanged(tools);
          },
        },
      },
    });
    const onElicitation = this.onElicitation;
    if (onElicitation) {
      client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
        const params = request.params;
        // Only form mode is declared, so the SDK has refused URL mode before this runs.
        if (!("requestedSchema" in params)) return { action: "decline" };
        return onElicitation({ message: params.message, requestedSchema: params.requestedSchema as Record<string, unknown> }, extra.signal);
      });
    }
    client.onclose = () => {
      // The server or the network ended the connection: reconnect on next use.
      void this.client?.then(
        (current) => {
          if (current === client) this.client = undefined;
        },
        () => undefined,
      );
    };
    const timedOut = new Promise<never>((_, reject) => {
      const onTimeout = () => reject(new Error(`no answer within ${MCP_CONNECT_TIMEOUT_MS} ms`));
      if (deadline.aborted) onTimeout();
      else deadline.addEventListener("abort", onTimeout, { once: true });
    });
    timedOut.catch(() => undefined); // settles after the race when the connection won
    try {
      await Promise.race([client.connect(transport, { timeout: MCP_CONNECT_TIMEOUT_MS }), timedOut]);
      return client;
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
  }
}

/**
 * A server that failed in a way only the operator should read in full. `message` names the server only:
 * it reaches sessions (events, tool results) and so anyone holding a session key. `operatorMessage` adds
 * the URL and the reasons, for the operator's listing and the Worker's logs.
 */
export class McpOperatorError extends Error {
  constructor(
    message: string,
    readonly operatorMessage: string,
  ) {
    super(message);
  }
}

/** A server that could not be reached over either transport. */
export class McpUnreachableError extends McpOperatorError {}

/** A server that asked for OAuth, where the flow failed before any user could be asked. */
export class McpAuthFailedError extends McpOperatorError {}

/** The server needs the user to authorize this Worker; `authorizationUrl` is where to send them. */
export class McpAuthRequiredError extends Error {
  constructor(
    readonly server: string,
    readonly authorizationUrl: string | undefined,
  ) {
    super(authorizationUrl ? `MCP server "${server}" needs authorization` : `MCP server "${server}" refused our credentials (401)`);
  }
}

/** The refusal `err` stands for, when the server answered 401/403 or the SDK's OAuth flow needs the user. */
function authRefusal(
  sdk: ClientSdk,
  server: McpServerConfig,
  err: unknown,
  auth: McpOAuthProvider | undefined,
): McpAuthRequiredError | undefined {
  if (err instanceof McpAuthRequiredError) return err;
  const unauthorized =
    err instanceof sdk.UnauthorizedError ||
    (err instanceof sdk.StreamableHTTPError && (err.code === 401 || err.code === 403)) ||
    (err instanceof McpRpcError && (err.status === 401 || err.status === 403));
  return unauthorized ? new McpAuthRequiredError(server.name, auth?.authorizationUrl) : undefined;
}

/**
 * A fetch that tells the OAuth client when the server wants more scope, before the SDK reacts to it, and
 * shows the SDK the challenge with the scope already granted added (SEP-2350): the SDK asks for exactly
 * the challenged scope, and a grant of that alone would lose what the earlier requests needed.
 */
function noticingStepUp(sdk: ClientSdk, auth: McpOAuthProvider): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.status !== 403 || !/error="?insufficient_scope/.test(response.headers.get("www-authenticate") ?? "")) return response;
    const { resourceMetadataUrl, scope } = sdk.extractWWWAuthenticateParams(response);
    const union = await auth.stepUpScope(scope);
    auth.stepUp();
    if (union === undefined || union === scope) return response;
    const headers = new Headers(response.headers);
    const params = [`error="insufficient_scope"`, `scope="${union}"`];
    if (resourceMetadataUrl) params.push(`resource_metadata="${resourceMetadataUrl.href}"`);
    headers.set("www-authenticate", `Bearer ${params.join(", ")}`);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

function headersOf(init: RequestInit | undefined): Record<string, string> {
  return init?.headers ? Object.fromEntries(new Headers(init.headers).entries()) : {};
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}
