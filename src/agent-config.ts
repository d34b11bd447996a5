/**
 * The deployer's configuration in code: defaults for new sessions and the agent hooks (the Worker's vars
 * and secrets, with their defaults, are src/config.ts).
 * Every hook is optional; an absent hook means the core's default (see src/core/agent-loop.ts).
 * Session bodies may override systemPrompt, toolExecution, the tool subset and the approval list.
 */
import { DEFAULT_MAX_STEPS, type AgentHooks, type AgentTool, type AgentToolCall, type ToolExecutionMode } from "./core/index.ts";

export type ApprovalPolicy = (toolCall: AgentToolCall, tool: AgentTool, session: { requireApproval: readonly string[] }) => boolean;

export type AgentConfig = {
  systemPrompt: string;
  toolExecution: ToolExecutionMode;
  /** LLM calls per run before it stops with stopReason "max_steps". */
  maxSteps: number;
  /** A tool call running longer becomes an error result (a tool's own timeoutMs wins). */
  toolTimeoutMs: number;
  /** Tool results larger than this are truncated (with a note) before they are stored or sent to the model. */
  maxToolResultChars: number;
  /** Parallel batches run at most this many tools at once. */
  maxParallelToolCalls: number;
  /** Whether a call waits for a human: the tool's own flag, or the session's `requireApproval` list names it. */
  needsApproval: ApprovalPolicy;
  /** A hook (prepareContext, formatMsgForLLM, beforeToolCall, afterToolCall) running longer fails (its call gets an error result). */
  hookTimeoutMs: number;
  hooks: AgentHooks;
};

export const agentConfig: AgentConfig = {
  systemPrompt: "You are a helpful assistant running at the edge. Use the tools you have when they help; call listTools to see them.",
  toolExecution: "parallel",
  maxSteps: DEFAULT_MAX_STEPS,
  toolTimeoutMs: 60_000,
  maxToolResultChars: 100_000,
  maxParallelToolCalls: 8,
  hookTimeoutMs: 30_000,
  needsApproval: (toolCall, tool, session) =>
    tool.requiresApproval === true || session.requireApproval.includes(toolCall.name) || session.requireApproval.includes("*"),
  hooks: {},
};
