/**
 * One tools/call from an MCP client, run through the core's per-call pipeline (prepare → execute →
 * finalize): the same argument validation, deployer hooks, timeout and result limits as a session's calls.
 * There is no human at the other end of /mcp, so a tool that needs approval is refused, not run.
 * Called by the /mcp server (mcp-server.ts); never throws: every failure is an error outcome.
 */
import { agentConfig } from "../agent-config.ts";
import {
  executePreparedToolCall,
  finalizeExecutedToolCall,
  prepareToolCall,
  type AgentContext,
  type AgentLoopConfig,
  type AgentToolCall,
  type AgentToolResult,
  type AssistantMessage,
  type AwaitApproval,
  type ToolExecutionContext,
  type ToolStore,
} from "../core/index.ts";

export type ServedCallOptions = {
  /** Passed to tools as their context (the Worker's env, never a session). */
  toolContext: ToolExecutionContext;
  onPartialResult: (partial: unknown) => void;
  signal?: AbortSignal;
};

export type ServedCallOutcome = { result: AgentToolResult; isError: boolean };

/** The approval step with nobody to ask: a call the policy wants approved is refused. */
const refuseApproval =
  (store: ToolStore): AwaitApproval =>
  (ctx) => {
    const tool = store.get(ctx.toolCall.name);
    if (tool && agentConfig.needsApproval(ctx.toolCall, tool, { requireApproval: [] })) {
      return { approved: false, reason: `Tool "${tool.name}" needs a human's approval, which a call over /mcp cannot get` };
    }
    return undefined;
  };

export async function runServedToolCall(store: ToolStore, name: string, args: Record<string, unknown>, options: ServedCallOptions): Promise<ServedCallOutcome> {
  const toolCall: AgentToolCall = { type: "function", id: `mcp_${crypto.randomUUID()}`, name, arguments: args };
  const assistantMessage: AssistantMessage = { role: "assistant", content: [{ type: "toolCall", id: toolCall.id, name, arguments: args }], stopReason: "toolUse", timestamp: Date.now() };
  const context: AgentContext = { systemPrompt: "", messages: [assistantMessage], tools: store.tools };
  const config: AgentLoopConfig = {
    toolExecution: "sequential",
    beforeToolCall: agentConfig.hooks.beforeToolCall,
    afterToolCall: agentConfig.hooks.afterToolCall,
    awaitApproval: refuseApproval(store),
    hookTimeoutMs: agentConfig.hookTimeoutMs,
    toolTimeoutMs: agentConfig.toolTimeoutMs,
    maxToolResultChars: agentConfig.maxToolResultChars,
    toolContext: options.toolContext,
  };
  const prepared = await prepareToolCall(context, assistantMessage, toolCall, config, options.signal);
  if (prepared.kind === "immediate") return { result: prepared.result, isError: prepared.isError };
  const emit = (event: { type: string; partialResult?: unknown }) => {
    if (event.type === "toolExecUpdate") options.onPartialResult(event.partialResult);
  };
  const executed = await executePreparedToolCall(prepared, config, emit, options.signal);
  const finalized = await finalizeExecutedToolCall(context, assistantMessage, prepared, executed, config, options.signal);
  return { result: finalized.result, isError: finalized.isError };
}
