/**
 * The session's MCP tools: one connection per server the session chose, their tools registered in the
 * session's ToolStore as `<server>_<tool>`, re-registered when a server announces tools/list_changed.
 * The session calls `refresh()` before each run (a server that was down is tried again) and reports
 * problems through `report` (an `error` event): an unreachable server never fails the session, and a
 * call to a server that went away is an error result. Bundled and written tools win name clashes.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentTool, ToolStore } from "../core/index.ts";
import { McpConnection, McpUnreachableError, type McpElicitation, type McpElicitationAnswer } from "./mcp-connection.ts";
import { createMcpTool, mcpToolOrigin } from "./mcp-tool.ts";
import type { McpServerConfig } from "./servers-config.ts";

type ServerState = { connection: McpConnection; names: string[]; listed: boolean; calls: Set<AbortSignal> };

/** Asks the session's user on a server's behalf; settles with cancel when `signal` aborts. */
export type SessionElicit = (server: string, question: McpElicitation, signal: AbortSignal) => Promise<McpElicitationAnswer>;

export class SessionMcpTools {
  private readonly servers = new Map<string, ServerState>();
  private refreshing?: Promise<void>;
  private problems: string[];

  constructor(
    private readonly store: ToolStore,
    servers: readonly McpServerConfig[],
    private readonly report: (message: string) => void,
    /** Configuration problems found while loading, reported by the first refresh. */
    problems: readonly string[] = [],
    /** Given: servers may ask the session's user (elicitation); absent: the client declares no elicitation. */
    elicit?: SessionElicit,
  ) {
    this.problems = [...problems];
    for (const server of servers) {
      const calls = new Set<AbortSignal>();
      const onElicitation = elicit ? (question: McpElicitation, signal: AbortSignal) => elicit(server.name, question, whileCallsRun(calls, signal)) : undefined;
      const connection = new McpConnection(server, (tools) => this.register(server, tools), onElicitation);
      this.servers.set(server.name, { connection, names: [], listed: false, calls });
    }
  }

  /** Lists the tools of every server not listed yet; concurrent callers share one attempt. Never rejects. */
  refresh(): Promise<void> {
    for (const problem of this.problems.splice(0)) this.report(problem);
    if (!this.refreshing) {
      this.refreshing = Promise.all([...this.servers.values()].filter((s) => !s.listed).map((s) => this.list(s))).then(() => {
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

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.connection.close()));
  }

  private async list(state: ServerState): Promise<void> {
    try {
      this.register(state.connection.server, await state.connection.listTools());
      state.listed = true;
    } catch (err) {
      // The URL and the reasons go to the Worker's logs (operators); the session learns only the name.
      if (err instanceof McpUnreachableError) console.warn(err.operatorMessage);
      this.report(`${err instanceof Error ? err.message : String(err)}; its tools are unavailable until it answers`);
    }
  }

  /** Replaces this server's tools in the store with `tools`. */
  private register(server: McpServerConfig, tools: readonly Tool[]): void {
    const state = this.servers.get(server.name);
    if (!state) return;
    for (const name of state.names) {
      if (mcpToolOrigin(this.store.get(name))?.server === server.name) this.store.remove(name);
    }
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
      this.report(`MCP server "${server.name}": tool(s) ${clashes.join(", ")} not added, their names clash with other tools`);
    }
  }
}

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
