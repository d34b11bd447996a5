/**
 * Helpers for the tool tests: run tool calls through the real core batch (prepare → execute →
 * finalize), so a test sees exactly what the model would see, and call a tool's execute directly.
 * Used only by test/tools/*.test.ts. No network, no clock mock.
 */
import { executeToolCalls } from "../../src/core/tool-batch.ts";
import { prepareToolCall } from "../../src/core/tool-pipeline.ts";
import type { AgentEvent } from "../../src/core/events.ts";
import type {
  AgentContext,
  AgentLoopConfig,
  AgentTool,
  AgentToolResult,
  AssistantMessage,
  ImmediateOutcome,
  PreparedToolCall,
  ToolArguments,
  ToolExecutionContext,
  ToolResultMessage,
} from "../../src/core/types.ts";

const assistantMessage: AssistantMessage = { role: "assistant", content: [], stopReason: "toolUse", timestamp: 0 };

function setup(tool: AgentTool, toolContext?: ToolExecutionContext): { context: AgentContext; config: AgentLoopConfig } {
  const tools = new Map([[tool.name, tool]]);
  return {
    context: { systemPrompt: "", messages: [], tools },
    config: { toolExecution: "parallel", toolContext },
  };
}

/** Runs one call of `tool` through the core batch; returns its result message and the events emitted. */
export async function runToolCall(
  tool: AgentTool,
  args: ToolArguments | string,
  toolContext?: ToolExecutionContext,
): Promise<{ message: ToolResultMessage; events: AgentEvent[] }> {
  const { context, config } = setup(tool, toolContext);
  const events: AgentEvent[] = [];
  const batch = await executeToolCalls(
    context,
    assistantMessage,
    [{ type: "function", id: "call-1", name: tool.name, arguments: args }],
    config,
    (event) => {
      events.push(event);
    },
  );
  const message = batch.messages[0];
  if (!message) throw new Error("the batch returned no result message");
  return { message, events };
}

/** Only the prepare phase (argument parsing and validation) of one call. */
export function prepareCall(tool: AgentTool, args: ToolArguments): Promise<PreparedToolCall | ImmediateOutcome> {
  const { context, config } = setup(tool);
  return prepareToolCall(context, assistantMessage, { type: "function", id: "call-1", name: tool.name, arguments: args }, config);
}

export { textOf } from "../support/text.ts";

/** Calls execute directly, outside the pipeline (no validation, no hooks); partial results are collected. */
export async function executeDirectly(
  tool: AgentTool,
  args: ToolArguments,
  options: { signal?: AbortSignal; context?: ToolExecutionContext } = {},
): Promise<{ result: AgentToolResult; partials: unknown[] }> {
  const partials: unknown[] = [];
  const result = await tool.execute("call-1", args, options.signal, (p) => partials.push(p), options.context);
  return { result, partials };
}
