/**
 * Typed tool contexts: each tool gets only what it declared. A tool lists the env keys and bindings it
 * needs (`env: ["WEATHER_API_BASE_URL"]`) and the capabilities it uses (`capabilities: ["registerDraft"]`);
 * the session binds every bundled tool to a context holding exactly those, never the Worker's whole env.
 * Called by the session loader (src/session/session-loader.ts) when it fills a session's ToolStore.
 * Invariant: a key a tool did not declare is absent from its context.env, whatever the host holds.
 */
import type { AgentTool, ToolCapability, ToolExecutionContext, ToolRegistry } from "../core/index.ts";
import type {} from "../host-vocabulary.ts";
import type { ScheduleAccess } from "../schedules/schedule-vocabulary.ts";
import type { RunSubAgent } from "../session/sub-agents/sub-agent-vocabulary.ts";
import type { MemoryAccess } from "../users/memory-vocabulary.ts";

/** What the session offers; each tool receives the part it declared. */
export type ToolHost = {
  sessionId: string;
  env: Readonly<Record<string, unknown>>;
  /** `runSubAgent`, `schedules` and `memory` only where a session offers them (not, e.g., on the /mcp server). */
  capabilities: {
    registerDraft: (tool: AgentTool) => boolean;
    bundledToolNames: () => readonly string[];
    runSubAgent?: RunSubAgent;
    schedules?: ScheduleAccess;
    memory?: MemoryAccess;
  };
};

/** Never handed to a tool, whatever it declares: with the signing secret a tool could forge session ids. */
const WITHHELD_ENV_KEYS: ReadonlySet<string> = new Set(["SIGNING_SECRET"]);

/** The context `tool` may see: its declared env keys that the host has, and its declared capabilities. */
export function contextFor(tool: Pick<AgentTool, "env" | "capabilities">, host: ToolHost): ToolExecutionContext {
  const env: Record<string, unknown> = {};
  for (const key of tool.env ?? []) {
    if (WITHHELD_ENV_KEYS.has(key)) continue;
    if (Object.hasOwn(host.env, key) && host.env[key] !== undefined) env[key] = host.env[key];
  }
  const context: ToolExecutionContext = { sessionId: host.sessionId, env: Object.freeze(env) };
  for (const capability of tool.capabilities ?? []) grant(context, capability, host);
  return context;
}

function grant(context: ToolExecutionContext, capability: ToolCapability, host: ToolHost): void {
  switch (capability) {
    case "registerDraft":
      context.registerDraft = host.capabilities.registerDraft;
      context.bundledToolNames = host.capabilities.bundledToolNames;
      return;
    case "subAgent":
      if (host.capabilities.runSubAgent) context.runSubAgent = host.capabilities.runSubAgent;
      return;
    case "schedules":
      // Absent where the host has no schedules (then the tool answers that it cannot schedule).
      if (host.capabilities.schedules) context.schedules = host.capabilities.schedules;
      return;
    case "toolCalls":
      // Granted by the loop per call (core/nested-tool-calls.ts), never bound at load.
      return;
    case "memory":
      // Absent in a session of no user (whose loader offers no memory tool at all).
      if (host.capabilities.memory) context.memory = host.capabilities.memory;
      return;
    default: {
      const unknown: never = capability;
      throw new Error(`Unknown tool capability ${String(unknown)}`);
    }
  }
}

/** `tool` with its context fixed: whatever context the loop passes, execute receives the declared one. */
export function bindToolContext(tool: AgentTool, host: ToolHost): AgentTool {
  const context = contextFor(tool, host);
  const execute = tool.execute;
  return { ...tool, execute: (toolCallId, args, signal, onPartialResult) => execute(toolCallId, args, signal, onPartialResult, context) };
}

/** The registry with every tool bound to its declared context (what a session loads). */
export function withToolContexts(registry: ToolRegistry, host: ToolHost): ToolRegistry {
  return Object.fromEntries(Object.entries(registry).map(([name, mod]) => [name, { getTool: () => bindToolContext(mod.getTool(), host) }]));
}
