/**
 * The session's MCP tools: one connection per server (the deployer's the session chose, and those it
 * added), their tools registered in the session's ToolStore as `<server>_<tool>`, re-registered when a
 * server announces tools/list_changed. The session calls `refresh()` before each run (a server that was
 * down is tried again) and learns of problems through `emit`: an unreachable server is an `error`, one
 * that needs OAuth is `mcpAuthRequired` (its tools absent until the callback), a changed tool list is
 * `mcpToolsChanged`, emitted before the new definitions are registered. Never fails the session.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentEvent, AgentTool, ToolStore } from "../../core/index.ts";
import { McpAuthRequiredError, McpConnection, McpOperatorError, type McpElicitation, type McpElicitationAnswer } from "./mcp-connection.ts";
import { createMcpTool, mcpToolOrigin } from "./mcp-tool.ts";
import type { McpOAuthProvider } from "../oauth/oauth-provider.ts";
import { FLOW_TTL_MS } from "../oauth/oauth-store.ts";
import type { McpServerConfig } from "./servers-config.ts";

/** Who listed a server: the deployer (MCP_SERVERS; credentials are the Worker's) or the session itself. */
export type McpServerSource = "deployer" | "session";
export type McpSessionEvent = Extract<AgentEvent, { type: "error" | "mcpAuthRequired" | "mcpToolsChanged" }>;
export type McpAuthFactory = (server: McpServerConfig, source: McpServerSource) => McpOAuthProvider | undefined;
export type McpServerView = {
  name: string;
  source: McpServerSource;
  status: "ready" | "authRequired" | "unavailable" | "connecting";
  authorizationUrl?: string;
  /** Only for servers the session added (the deployer's URLs are the operator's to see). */
  url?: string;
};

type ServerState = {
  server: McpServerConfig;
  source: McpServerSource;
  connection: McpConnection;
  names: string[];
  listed: boolean;
  failed: boolean;
  /** Each tool's definition as last registered, to tell a change under the same name (drift). */
  definitions?: Map<string, string>;
  /** Set while the user is asked to authorize; no new flow starts before `until`. */
  auth?: { url?: string; until: number };
  /** The signals of this server's calls in flight (an abort among them ends a question it asks). */
  calls: Set<AbortSignal>;
};

/** Asks the session's user on a server's behalf; settles with cancel when `signal` aborts. */
export type SessionElicit = (server: string, question: McpElicitation, signal: AbortSignal) => Promise<McpElicitationAnswer>;

export type SessionMcpOptions = {
  /** The session's ToolStore, which the servers' tools join. */
  store: ToolStore;
  emit: (event: McpSessionEvent) => void;
  /** The deployer's servers the session uses (MCP_SERVERS). */
  servers?: readonly McpServerConfig[];
  /** Servers the session added itself. */
  added?: readonly McpServerConfig[];
  /** Configuration problems found while loading, reported by the first refresh. */
  problems?: readonly string[];
  /** Each server's OAuth client; absent or undefined for a server: it is reached without one. */
  authFor?: McpAuthFactory;
  /** Given: servers may ask the session's user (elicitation); absent: the client declares no elicitation. */
  elicit?: SessionElicit | undefined;
};

export class SessionMcpTools {
  private readonly servers = new Map<string, ServerState>();
  private refreshing?: Promise<void>;
  private problems: string[];
  private readonly store: ToolStore;
  private readonly emit: (event: McpSessionEvent) => void;
  private readonly authFor: McpAuthFactory;
  private readonly elicit: SessionElicit | undefined;

  constructor(options: SessionMcpOptions) {
    this.store = options.store;
    this.emit = options.emit;
    this.authFor = options.authFor ?? (() => undefined);
    this.elicit = options.elicit;
    this.problems = [...(options.problems ?? [])];
    for (const server of options.servers ?? []) this.track(server, "deployer");
    for (const server of options.added ?? []) this.track(server, "session");
  }

  /** Lists the tools of every server not listed yet; concurrent callers share one attempt. Never rejects. */
  refresh(): Promise<void> {
    for (const problem of this.problems.splice(0)) this.emit({ type: "error", message: problem });
    if (!this.refreshing) {
      this.refreshing = Promise.all([...this.servers.values()].filter((s) => !s.listed).map((s) => this.retry(s))).then(() => {
        this.refreshing = undefined;
      });
    }
    return this.refreshing;
  }

  /** Names of the MCP tools currently registered, with their server. */
  tools(): { name: string; server: string; tool: string }[] {
    return this.store.list().flatMap((t) => {
      const origin = mcpToolOrigin(t);
      return origin ? [{ name: t.name, ...origin }] : [];
    });
  }

  /** Every server with its state, for the snapshot. */
  describe(): McpServerView[] {
    return [...this.servers.values()].map((s) => ({
      name: s.server.name,
      source: s.source,
      status: s.listed ? "ready" : s.auth ? "authRequired" : s.failed ? "unavailable" : "connecting",
      ...(s.auth?.url && !s.listed ? { authorizationUrl: s.auth.url } : {}),
      ...(s.source === "session" ? { url: s.server.url } : {}),
    }));
  }

  has(name: string): boolean {
    return this.servers.has(name);
  }

  count(source: McpServerSource): number {
    return [...this.servers.values()].filter((s) => s.source === source).length;
  }

  /** Adds a server the session brought and lists its tools (an unreachable one is reported, not thrown). */
  async add(server: McpServerConfig): Promise<void> {
    await this.list(this.track(server, "session"));
  }

  /** Removes a server the session added: its tools leave the store and its connection closes. */
  async remove(name: string): Promise<boolean> {
    const state = this.servers.get(name);
    if (state?.source !== "session") return false;
    this.servers.delete(name);
    this.unregister(state);
    await state.connection.close();
    return true;
  }

  /** The user completed the server's authorization: connect again with the new tokens and list. */
  async authorized(name: string): Promise<void> {
    const state = this.servers.get(name);
    if (!state) return;
    state.auth = undefined;
    await state.connection.reconnect();
    await this.list(state);
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.connection.close()));
  }

  private track(server: McpServerConfig, source: McpServerSource): ServerState {
    const auth = this.authFor(server, source);
    const calls = new Set<AbortSignal>();
    const elicit = this.elicit;
    const onElicitation = elicit
      ? (question: McpElicitation, signal: AbortSignal) => elicit(server.name, question, whileCallsRun(calls, signal))
      : undefined;
    const connection = new McpConnection(server, (tools) => this.register(state, tools), auth, onElicitation);
    const state: ServerState = { server, source, connection, names: [], listed: false, failed: false, calls };
    this.servers.set(server.name, state);
    return state;
  }

  /** A server waiting for its user is not asked again until the flow expires, unless tokens arrived meanwhile. */
  private async retry(state: ServerState): Promise<void> {
    if (state.auth && Date.now() < state.auth.until && !(await state.connection.auth?.hasTokens().catch(() => false))) return;
    await this.list(state);
  }

  private async list(state: ServerState): Promise<void> {
    try {
      this.register(state, await state.connection.listTools());
      state.auth = undefined;
      state.failed = false;
    } catch (err) {
      if (err instanceof McpAuthRequiredError) return this.needsAuth(state, err);
      state.failed = true;
      // The URL and the reasons go to the Worker's logs (operators); the session learns only the name.
      if (err instanceof McpOperatorError) console.warn(err.operatorMessage);
      this.emit({
        type: "error",
        message: `${err instanceof Error ? err.message : String(err)}; its tools are unavailable until it answers`,
      });
    }
  }

  private needsAuth(state: ServerState, err: McpAuthRequiredError): void {
    this.unregister(state);
    state.listed = false;
    // The URL comes from the server's metadata: only an http(s) one is offered to the user as a link.
    const url = err.authorizationUrl && /^https?:\/\//i.test(err.authorizationUrl) ? err.authorizationUrl : undefined;
    state.auth = { url, until: Date.now() + FLOW_TTL_MS };
    if (url) this.emit({ type: "mcpAuthRequired", server: state.server.name, authorizationUrl: url });
    else this.emit({ type: "error", message: `${err.message}; its tools are unavailable` });
  }

  private unregister(state: ServerState): void {
    for (const name of state.names) {
      if (mcpToolOrigin(this.store.get(name))?.server === state.server.name) this.store.remove(name);
    }
    state.names = [];
  }

  /** Replaces this server's tools in the store with `tools`, telling the client first what changed. */
  private register(state: ServerState, tools: readonly Tool[]): void {
    const { server } = state;
    if (this.servers.get(server.name) !== state) return; // removed meanwhile
    const definitions = new Map(tools.map((t) => [t.name, fingerprint(t)]));
    if (state.definitions) {
      const before = state.definitions;
      const added = [...definitions.keys()].filter((n) => !before.has(n));
      const removed = [...before.keys()].filter((n) => !definitions.has(n));
      const changed = [...definitions].filter(([n, f]) => before.has(n) && before.get(n) !== f).map(([n]) => n);
      if (added.length + removed.length + changed.length > 0)
        this.emit({ type: "mcpToolsChanged", server: server.name, added, removed, changed });
    }
    state.definitions = definitions;
    this.unregister(state);
    const names: string[] = [];
    const clashes: string[] = [];
    for (const def of tools) {
      const tool: AgentTool = createMcpTool(server, def, (name, args, options) => {
        // The run's abort reaches a question this call's server is asking (see whileCallsRun).
        const signal = options.signal ?? new AbortController().signal;
        state.calls.add(signal);
        return state.connection
          .callTool(name, args, options)
          .catch((err: unknown) => {
            // Tokens revoked and not refreshable, or a tool that needs more scope (step-up): ask the user
            // again, and hide the server's tools meanwhile.
            if (err instanceof McpAuthRequiredError) {
              if (err.authorizationUrl) this.needsAuth(state, err);
              else void this.list(state);
            }
            throw new Error(describeCallFailure(server, err));
          })
          .finally(() => state.calls.delete(signal));
      });
      // Our own old tools were removed above: anything still there belongs to someone else.
      if (this.store.has(tool.name) || names.includes(tool.name)) clashes.push(def.name);
      else {
        this.store.register(tool);
        names.push(tool.name);
      }
    }
    state.names = names;
    state.listed = true;
    if (clashes.length > 0) {
      this.emit({
        type: "error",
        message: `MCP server "${server.name}": tool(s) ${clashes.join(", ")} not added, their names clash with other tools`,
      });
    }
  }
}

/** What the model is told about a tool: a change here under the same name is drift. */
const fingerprint = (t: Tool): string =>
  JSON.stringify([t.title ?? null, t.description ?? null, t.inputSchema, t.outputSchema ?? null, t.annotations ?? null]);

/** An abort keeps its own message (the pipeline reports it); anything else names the server. */
function describeCallFailure(server: McpServerConfig, err: unknown): string {
  const message = err instanceof Error ? err.message || err.name : String(err);
  return message.startsWith(`MCP server "${server.name}"`) ? message : `MCP server "${server.name}": ${message}`;
}

/**
 * A server asks while one of its calls runs; the SDK does not say which. The question ends (cancel) when
 * the server withdraws it, or when a call in flight is aborted (the run's abort) — a run aborts them all.
 */
function whileCallsRun(calls: ReadonlySet<AbortSignal>, serverSignal: AbortSignal): AbortSignal {
  return AbortSignal.any([serverSignal, ...calls]);
}
