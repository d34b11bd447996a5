/**
 * One tools/call from an MCP client, run through the core's per-call pipeline (prepare → execute →
 * finalize): the same argument validation, deployer hooks, timeout and result limits as a session's calls.
 * A tool that needs approval asks the MCP client's user through elicitation (a yes/no form); a client
 * that cannot elicit has nobody to ask, so the call is refused, not run.
 * Called by the /mcp server (mcp-server.ts); never throws: every failure is an error outcome.
 */
import { agentConfig } from "../../agent-config.ts";
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
} from "../../core/index.ts";
import type { ToolElicitation, ToolElicitationAnswer } from "../mcp-vocabulary.ts";

export type ServedCallOptions = {
  /** Passed to tools as their context (the Worker's env, never a session). */
  toolContext: ToolExecutionContext;
  onPartialResult: (partial: unknown) => void;
  /** Asks the client's user; absent when the client declared no elicitation capability. */
  elicit?: (question: ToolElicitation) => Promise<ToolElicitationAnswer>;
  signal?: AbortSignal;
};

export type ServedCallOutcome = { result: AgentToolResult; isError: boolean };

/** The form an approval question shows: one required yes/no field. */
export const APPROVAL_SCHEMA = {
  type: "object",
  properties: { approve: { type: "boolean", title: "Run this tool call?", description: "Yes runs it; no refuses it" } },
  required: ["approve"],
} as const;

/** The approval step: the client's user answers through elicitation, or the call is refused. */
const approvalByElicitation =
  (store: ToolStore, elicit: ServedCallOptions["elicit"]): AwaitApproval =>
  async (ctx) => {
    const tool = store.get(ctx.toolCall.name);
    if (!tool || !agentConfig.needsApproval(ctx.toolCall, tool, { requireApproval: [] })) return undefined;
    if (!elicit)
      return {
        approved: false,
        reason: `Tool "${tool.name}" needs a human's approval, and this MCP client cannot be asked (no elicitation capability)`,
      };
    let answer: ToolElicitationAnswer;
    try {
      answer = await elicit({
        message: `Allow tool "${tool.name}" to run with ${JSON.stringify(ctx.args).slice(0, 2_000)}?`,
        requestedSchema: { ...APPROVAL_SCHEMA },
      });
    } catch (err) {
      return { approved: false, reason: `Approval could not be asked: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (answer.action === "accept" && answer.content?.approve === true) return { approved: true };
    return { approved: false, reason: answer.action === "accept" ? "Rejected by the user" : `The user answered ${answer.action}` };
  };

export async function runServedToolCall(
  store: ToolStore,
  name: string,
  args: Record<string, unknown>,
  options: ServedCallOptions,
): Promise<ServedCallOutcome> {
  const toolCall: AgentToolCall = { type: "function", id: `mcp_${crypto.randomUUID()}`, name, arguments: args };
  const assistantMessage: AssistantMessage = {
    role: "assistant",
    content: [{ type: "toolCall", id: toolCall.id, name, arguments: args }],
    stopReason: "toolUse",
    timestamp: Date.now(),
  };
  const context: AgentContext = { systemPrompt: "", messages: [assistantMessage], tools: store.tools };
  const config: AgentLoopConfig = {
    toolExecution: "sequential",
    beforeToolCall: agentConfig.hooks.beforeToolCall,
    afterToolCall: agentConfig.hooks.afterToolCall,
    awaitApproval: approvalByElicitation(store, options.elicit),
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
