/**
 * ToolStore (the spec's toolStore): a per-agent tool registry with O(1) lookup and insertion order.
 * Each store is isolated; `listTools` is bound to its own store so the model sees only that agent's tools.
 * `loadTools` fills a store from a registry object (the build-time generated one) and adds listTools.
 */
import type { AgentTool, AgentToolResult } from "./types.ts";

export const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A registry maps file/tool names to modules exporting `getTool()`, as the generated registry does. */
export type ToolRegistry = Readonly<Record<string, { getTool: () => AgentTool }>>;

/** Extra lines listTools may append (e.g. written tools and their deployment status). */
export type ToolListingExtra = () => string[] | Promise<string[]>;

export class ToolStore {
  readonly tools = new Map<string, AgentTool>();

  /** `sessionId`: the session whose tools these are (written tools' drafts belong to it). */
  constructor(readonly sessionId = "default") {}

  /** Adds or replaces a tool (a later registration of the same name wins, keeping its first position). */
  register(tool: AgentTool): void {
    if (!TOOL_NAME_PATTERN.test(tool.name)) {
      throw new Error(`Invalid tool name ${JSON.stringify(tool.name)}: must match ${TOOL_NAME_PATTERN}`);
    }
    this.tools.set(tool.name, tool);
  }

  /** Removes a tool (e.g. one its source no longer offers); returns whether it was there. */
  remove(name: string): boolean {
    return this.tools.delete(name);
  }

  get(name: string): AgentTool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  list(): AgentTool[] {
    return [...this.tools.values()];
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  clear(): void {
    this.tools.clear();
  }
}

export function listTool(store: ToolStore, extra?: ToolListingExtra): AgentTool {
  return {
    name: "listTools",
    label: "List Tools",
    description:
      "List every tool available to you, with its label and description. Use it to discover tools and to check for name collisions before writing a new tool.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    parallelToolExecute: true,
    idempotent: true,
    async execute(): Promise<AgentToolResult> {
      const lines = store.list().map((t) => `- ${t.name}: ${t.label} — ${t.description}`);
      const more = extra ? await extra() : [];
      const text = ["Available tools:", ...lines, ...more].join("\n");
      return {
        content: [{ type: "text", text }],
        details: { toolNames: store.names() },
        terminate: false,
      };
    },
  };
}

/**
 * Registers every tool of `registry` in key order (the generator sorts keys), checking that each module
 * returns a tool named like its key, then registers listTools. Throws naming the offending entry.
 */
export function loadTools(store: ToolStore, registry: ToolRegistry, extra?: ToolListingExtra): Map<string, AgentTool> {
  for (const [file, mod] of Object.entries(registry)) {
    if (typeof mod?.getTool !== "function") throw new Error(`Tool module "${file}" does not export getTool()`);
    const tool = mod.getTool();
    if (!tool || typeof tool !== "object" || typeof tool.execute !== "function") {
      throw new Error(`getTool() of "${file}" did not return an AgentTool`);
    }
    if (tool.name !== file) throw new Error(`Tool module "${file}" returns a tool named "${tool.name}"`);
    store.register(tool);
  }
  store.register(listTool(store, extra));
  return store.tools;
}
