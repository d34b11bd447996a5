/**
 * The per-call pipeline (docs/architecture.md "Agent semantics"): prepareToolCall → executePreparedToolCall →
 * finalizeExecutedToolCall.
 * No phase throws: every failure (unknown tool, bad arguments, a refused approval, a blocking, throwing or
 * hanging hook, a throwing, hanging or aborted execute, a malformed result) becomes an outcome with
 * isError=true. Hooks get the run's signal and `hookTimeoutMs`; an approval waits on the signal only.
 */
import { runHook } from "./run-hook.ts";
import { parseToolArguments, validateToolArguments } from "./tool-arguments.ts";
import { boundValue } from "./json-safe.ts";
import { createErrorToolResult, describeError, limitToolResult, MAX_STORED_RESULT_CHARS, normalizeToolResult } from "./tool-results.ts";
import type {
  AgentContext,
  ApprovalDecision,
  BeforeToolCallResult,
  AgentLoopConfig,
  AgentToolCall,
  AssistantMessage,
  ExecutedOutcome,
  FinalizedOutcome,
  ImmediateOutcome,
  PreparedToolCall,
} from "./types.ts";
import type { EmitEvent } from "./events.ts";

export const ABORTED_MESSAGE = "Operation aborted";
/** Cap on one partial result as JSON text: updates are stored in the event log like everything else. */
export const MAX_PARTIAL_RESULT_CHARS = 100_000;

const immediateError = (message: string): ImmediateOutcome => ({
  kind: "immediate",
  result: createErrorToolResult(message),
  isError: true,
});

export async function prepareToolCall(
  context: AgentContext,
  assistantMessage: AssistantMessage,
  toolCall: AgentToolCall,
  config: AgentLoopConfig,
  signal?: AbortSignal,
): Promise<PreparedToolCall | ImmediateOutcome> {
  if (toolCall.invalid) return immediateError(toolCall.invalid);
  if (signal?.aborted) return immediateError(ABORTED_MESSAGE);
  const tool = context.tools.get(toolCall.name);
  if (!tool) {
    const known = [...context.tools.keys()].join(", ") || "none";
    return immediateError(`Tool "${toolCall.name}" not found. Available tools: ${known}`);
  }
  const parsed = parseToolArguments(toolCall.arguments, toolCall.name);
  if (!parsed.ok) return immediateError(parsed.error);

  let args = parsed.args;
  try {
    if (tool.prepareArguments) args = tool.prepareArguments(args);
    const invalid = validateToolArguments(tool, args);
    if (invalid) return immediateError(invalid);
  } catch (err) {
    return immediateError(`Preparing arguments for tool "${tool.name}" failed: ${describeError(err)}`);
  }

  const hookContext = { assistantMessage, toolCall, args, context };
  if (config.awaitApproval) {
    const awaitApproval = config.awaitApproval;
    let decision: ApprovalDecision | undefined;
    try {
      // No hook timeout here: a human may take as long as the host's approval deadline allows.
      decision = await runHook("awaitApproval", (hookSignal) => awaitApproval(hookContext, hookSignal), undefined, signal);
    } catch (err) {
      if (signal?.aborted) return immediateError(ABORTED_MESSAGE);
      return immediateError(`Approval failed: ${describeError(err)}`);
    }
    if (decision && decision.approved !== true) return immediateError(decision.reason || "Tool call was not approved");
  }

  if (config.beforeToolCall) {
    const beforeToolCall = config.beforeToolCall;
    let before: BeforeToolCallResult;
    try {
      before = await runHook("beforeToolCall", (hookSignal) => beforeToolCall(hookContext, hookSignal), config.hookTimeoutMs, signal);
    } catch (err) {
      if (signal?.aborted) return immediateError(ABORTED_MESSAGE);
      return immediateError(`beforeToolCall hook failed: ${describeError(err)}`);
    }
    if (signal?.aborted) return immediateError(ABORTED_MESSAGE);
    // A permission hook that answers nonsense fails closed: the call does not run.
    if (
      before !== undefined &&
      before !== null &&
      (typeof before !== "object" || ("block" in before && typeof before.block !== "boolean"))
    ) {
      return immediateError(`beforeToolCall hook returned an invalid value: ${describeError(before)}`);
    }
    if (before && before.block === true) {
      const reason = typeof before.reason === "string" && before.reason ? before.reason : "Tool execution was blocked";
      return immediateError(reason);
    }
  }
  return { kind: "prepared", tool, toolCall, args };
}

/**
 * Runs the tool. Partial results become toolExecUpdate events only while the call is running: the
 * `accepting` guard drops late calls, and pending deliveries are awaited before the outcome is returned,
 * so the end event always follows every update.
 */
export async function executePreparedToolCall(
  prepared: PreparedToolCall,
  config: AgentLoopConfig,
  emit: EmitEvent,
  signal?: AbortSignal,
): Promise<ExecutedOutcome> {
  const { tool, toolCall, args } = prepared;
  const deliveries: Promise<void>[] = [];
  let accepting = true;
  const onPartialResult = (partialResult: unknown): void => {
    if (!accepting) return;
    try {
      const delivery = emit({
        type: "toolExecUpdate",
        toolCallId: toolCall.id,
        toolName: toolCall.name,
        arguments: args,
        partialResult: boundValue(partialResult, MAX_PARTIAL_RESULT_CHARS, "partialResult"),
      });
      if (delivery) deliveries.push(delivery.catch(() => undefined));
    } catch {
      // A failing sink must not fail the tool.
    }
  };

  // The tool gets its own signal: aborted by the run's signal or by the timeout.
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) forwardAbort();
  else signal?.addEventListener("abort", forwardAbort, { once: true });
  const timeoutMs = tool.timeoutMs ?? config.toolTimeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const stopped = new Promise<ExecutedOutcome>((resolve) => {
    const onStop = () => {
      const timedOut = controller.signal.reason === TIMEOUT;
      resolve({
        kind: "executed",
        result: createErrorToolResult(timedOut ? `Tool "${tool.name}" timed out after ${timeoutMs} ms` : ABORTED_MESSAGE),
        isError: true,
      });
    };
    if (controller.signal.aborted) onStop();
    else controller.signal.addEventListener("abort", onStop, { once: true });
  });
  if (timeoutMs && timeoutMs > 0) timer = setTimeout(() => controller.abort(TIMEOUT), timeoutMs);

  const run = (async (): Promise<ExecutedOutcome> => {
    try {
      await config.journal?.markExecuting(toolCall);
      const value = await tool.execute(toolCall.id, args, controller.signal, onPartialResult, config.toolContext);
      const normalized = normalizeToolResult(value);
      if (!normalized.ok) return { kind: "executed", result: createErrorToolResult(normalized.error), isError: true };
      return { kind: "executed", result: normalized.result, isError: false };
    } catch (err) {
      return { kind: "executed", result: createErrorToolResult(describeError(err)), isError: true };
    }
  })();

  try {
    // A tool that ignores its signal must not hold the run: abort and timeout win the race.
    return await Promise.race([run, stopped]);
  } finally {
    accepting = false;
    if (timer) clearTimeout(timer);
    signal?.removeEventListener("abort", forwardAbort);
    await Promise.all(deliveries);
  }
}

const TIMEOUT = Symbol("tool timeout");

export async function finalizeExecutedToolCall(
  context: AgentContext,
  assistantMessage: AssistantMessage,
  prepared: PreparedToolCall,
  executed: ExecutedOutcome,
  config: AgentLoopConfig,
  signal?: AbortSignal,
): Promise<FinalizedOutcome> {
  let result = executed.result;
  let isError = executed.isError;
  // After an abort the hook is not started: the call keeps its (aborted) result and the run can stop.
  if (config.afterToolCall && !signal?.aborted) {
    const afterToolCall = config.afterToolCall;
    const hookContext = { assistantMessage, toolCall: prepared.toolCall, args: prepared.args, result, isError, context };
    try {
      const after = await runHook("afterToolCall", (hookSignal) => afterToolCall(hookContext, hookSignal), config.hookTimeoutMs, signal);
      if (after !== undefined && after !== null && typeof after !== "object") {
        throw new Error(`afterToolCall returned ${typeof after} instead of an object`);
      }
      if (after) {
        const merged = normalizeToolResult({
          content: after.content ?? result.content,
          details: after.details ?? result.details,
          usage: after.usage ?? result.usage,
          terminate: after.terminate ?? result.terminate,
          addedToolNames: result.addedToolNames,
        });
        if (!merged.ok) throw new Error(`afterToolCall returned an invalid result: ${merged.error}`);
        result = merged.result;
        if (typeof after.isError === "boolean") isError = after.isError;
      }
    } catch (err) {
      result = createErrorToolResult(`afterToolCall hook failed: ${describeError(err)}`);
      isError = true;
    }
  }
  return {
    kind: "finalized",
    toolCall: prepared.toolCall,
    result: limitToolResult(result, Math.min(config.maxToolResultChars ?? MAX_STORED_RESULT_CHARS, MAX_STORED_RESULT_CHARS)),
    isError,
  };
}

export function emitToolExecutionEnd(finalized: FinalizedOutcome, emit: EmitEvent): void | Promise<void> {
  return emit({
    type: "toolExecEnd",
    toolCallId: finalized.toolCall.id,
    toolName: finalized.toolCall.name,
    result: finalized.result,
    isError: finalized.isError,
  });
}
