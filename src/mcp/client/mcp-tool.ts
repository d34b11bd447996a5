/**
 * The adapter: one tool of a remote MCP server → an AgentTool named `<server>_<tool>`, so it goes
 * through the same pipeline as every other tool (validation, approvals, hooks, timeouts, journal).
 * Progress notifications become partial results, the run's abort becomes an MCP cancellation, and a
 * result with `isError` (or an unreachable server) becomes an error result. Used by SessionMcpTools.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { TOOL_NAME_PATTERN, type AgentTool, type AgentToolResult } from "../../core/index.ts";
import { toAgentToolResult } from "../mcp-content.ts";
import { fallbackValidator } from "./argument-validation.ts";
import type { McpCallOptions } from "./mcp-connection.ts";
import type { McpServerConfig } from "./servers-config.ts";

/** OpenAI-compatible APIs reject longer function names. */
const MAX_TOOL_NAME_CHARS = 64;

export type McpToolOrigin = { server: string; tool: string };
export type McpCall = (tool: string, args: Record<string, unknown>, options: McpCallOptions) => Promise<CallToolResult>;

const origins = new WeakMap<AgentTool, McpToolOrigin>();

/** Where an MCP tool in a store came from; undefined for every other tool. */
export const mcpToolOrigin = (tool: AgentTool | undefined): McpToolOrigin | undefined => (tool ? origins.get(tool) : undefined);

/** `<server>_<tool>` with every character the tool-name pattern refuses replaced by `_`. */
export function mcpToolName(server: string, tool: string): string {
  let name = `${server}_${tool}`.replace(/[^A-Za-z0-9_]/g, "_").slice(0, MAX_TOOL_NAME_CHARS);
  if (!TOOL_NAME_PATTERN.test(name)) name = `_${name}`.slice(0, MAX_TOOL_NAME_CHARS);
  return name;
}

export function createMcpTool(server: McpServerConfig, def: Tool, call: McpCall): AgentTool {
  const name = mcpToolName(server.name, def.name);
  const inputSchema = { ...def.inputSchema } as Record<string, unknown>;
  const readOnly = def.annotations?.readOnlyHint === true;
  const tool: AgentTool = {
    name,
    label: def.title ?? def.annotations?.title ?? def.name,
    description: def.description ? `${def.description} (MCP server "${server.name}")` : `Tool "${def.name}" of MCP server "${server.name}"`,
    inputSchema,
    // Only a server that declares a tool read-only gets it run concurrently or re-run after a restart.
    parallelToolExecute: readOnly,
    ...(def.annotations ? { annotations: { ...def.annotations } } : {}),
    idempotent: readOnly,
    requiresApproval:
      server.requireApproval === true || (Array.isArray(server.requireApproval) && server.requireApproval.includes(def.name)),
    validateRequiredArgs: fallbackValidator(inputSchema, name),
    timeoutMs: server.timeoutMs,
    async execute(_toolCallId, args, signal, onPartialResult) {
      const result = await call(def.name, args, { signal, onProgress: (progress) => onPartialResult(progress) });
      const converted = toAgentToolResult(result);
      // Thrown, so the pipeline records an error result carrying the server's own words.
      if (result.isError === true) throw new Error(textOf(converted) || `MCP tool "${def.name}" failed without a message`);
      return converted;
    },
  };
  origins.set(tool, { server: server.name, tool: def.name });
  return tool;
}

const textOf = (result: AgentToolResult): string => result.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");

export { toAgentToolResult };
