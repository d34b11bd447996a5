/**
 * Executing one assistant message's tool calls as a batch (docs/architecture.md "Agent semantics").
 * Sequential when the config says so or any tool in the batch is not parallel-safe; parallel batches
 * prepare in call order, execute concurrently (optionally capped) and return results in call order.
 * Every call gets exactly one result, including calls skipped after an abort and calls found in the
 * journal of an interrupted earlier attempt.
 */
import {
  ABORTED_MESSAGE,
  emitToolExecutionEnd,
  executePreparedToolCall,
  finalizeExecutedToolCall,
  prepareToolCall,
} from "./tool-pipeline.ts";
import { createNestedToolCalls } from "./nested-tool-calls.ts";
import { parseToolArguments } from "./tool-arguments.ts";
import { createErrorToolResult, createToolResultMessage } from "./tool-results.ts";
import type { AgentContext, AgentLoopConfig, AgentToolCall, AgentToolCallBatch, AssistantMessage, FinalizedOutcome } from "./types.ts";
import type { EmitEvent } from "./events.ts";

export const SKIPPED_AFTER_ABORT = "Tool call skipped: the run was aborted before it started";
export const INTERRUPTED_BY_RESTART =
  "The session restarted while this tool call was running; it was not run again, so its effects are unknown";

export function shouldTerminate(finalized: readonly FinalizedOutcome[]): boolean {
  return finalized.length > 0 && finalized.every((f) => f.result.terminate);
}

export function usesSequentialExecution(context: AgentContext, toolCalls: readonly AgentToolCall[], config: AgentLoopConfig): boolean {
  if ((config.toolExecution ?? "sequential") === "sequential") return true;
  return toolCalls.some((tc) => {
    const tool = context.tools.get(tc.name);
    return tool !== undefined && !tool.parallelToolExecute;
  });
}

export async function executeToolCalls(
  context: AgentContext,
  assistantMessage: AssistantMessage,
  toolCalls: readonly AgentToolCall[],
  config: AgentLoopConfig,
  emit: EmitEvent,
  signal?: AbortSignal,
): Promise<AgentToolCallBatch> {
  const finalized = usesSequentialExecution(context, toolCalls, config)
    ? await executeToolCallsSequential(context, assistantMessage, toolCalls, config, emit, signal)
    : await executeToolCallsParallel(context, assistantMessage, toolCalls, config, emit, signal);
  const now = Date.now();
  return {
    messages: finalized.map((f) => createToolResultMessage(f, now)),
    terminate: shouldTerminate(finalized),
  };
}

type Runner = (run: () => Promise<FinalizedOutcome>) => Promise<FinalizedOutcome>;

async function executeToolCallsSequential(
  context: AgentContext,
  assistantMessage: AssistantMessage,
  toolCalls: readonly AgentToolCall[],
  config: AgentLoopConfig,
  emit: EmitEvent,
  signal?: AbortSignal,
): Promise<FinalizedOutcome[]> {
  const out: FinalizedOutcome[] = [];
  for (const tc of toolCalls) {
    if (signal?.aborted) out.push(await skipToolCall(tc, config, emit));
    else out.push(await (await startToolCall(context, assistantMessage, tc, config, emit, signal, (run) => run())).pending);
  }
  return out;
}

async function executeToolCallsParallel(
  context: AgentContext,
  assistantMessage: AssistantMessage,
  toolCalls: readonly AgentToolCall[],
  config: AgentLoopConfig,
  emit: EmitEvent,
  signal?: AbortSignal,
): Promise<FinalizedOutcome[]> {
  const runner = createRunner(config.maxParallelToolCalls);
  const entries: Promise<FinalizedOutcome>[] = [];
  for (const tc of toolCalls) {
    if (signal?.aborted) entries.push(skipToolCall(tc, config, emit));
    else entries.push((await startToolCall(context, assistantMessage, tc, config, emit, signal, runner)).pending);
  }
  return Promise.all(entries);
}

/**
 * Emits the start, prepares the call (awaited, so parallel batches prepare in order) and returns the
 * pending execution. A call already known to the journal is resumed instead of run blindly again.
 */
async function startToolCall(
  context: AgentContext,
  assistantMessage: AssistantMessage,
  tc: AgentToolCall,
  config: AgentLoopConfig,
  emit: EmitEvent,
  signal: AbortSignal | undefined,
  runner: Runner,
): Promise<{ pending: Promise<FinalizedOutcome> }> {
  const known = config.journal?.lookup(tc.id);
  if (known?.state === "ended") {
    return { pending: Promise.resolve({ kind: "finalized", toolCall: tc, result: known.result, isError: known.isError }) };
  }
  if (known?.state === "executing" && !context.tools.get(tc.name)?.idempotent) {
    return { pending: Promise.resolve(await endWith(tc, INTERRUPTED_BY_RESTART, config, emit)) };
  }
  if (!known) await announce(tc, config, emit);

  const prepared = await prepareToolCall(context, assistantMessage, tc, config, signal);
  if (prepared.kind === "immediate") {
    const finalized: FinalizedOutcome = { kind: "finalized", toolCall: tc, result: prepared.result, isError: prepared.isError };
    await endCall(finalized, config, emit);
    return { pending: Promise.resolve(finalized) };
  }
  // A tool that calls other tools (code mode) gets its nested calls in its context, bound to this call.
  const nested = prepared.tool.capabilities?.includes("toolCalls")
    ? createNestedToolCalls({ context, assistantMessage, parent: tc, config, emit })
    : undefined;
  const callConfig = nested
    ? { ...config, toolContext: { ...config.toolContext, env: config.toolContext?.env ?? {}, toolCalls: nested.calls } }
    : config;
  const pending = runner(async () => {
    const executed = signal?.aborted
      ? { kind: "executed" as const, result: createErrorToolResult(ABORTED_MESSAGE), isError: true }
      : await executePreparedToolCall(prepared, callConfig, emit, signal);
    await nested?.finish();
    const finalized = await finalizeExecutedToolCall(context, assistantMessage, prepared, executed, config, signal);
    await endCall(finalized, config, emit);
    return finalized;
  });
  return { pending };
}

async function skipToolCall(tc: AgentToolCall, config: AgentLoopConfig, emit: EmitEvent): Promise<FinalizedOutcome> {
  const known = config.journal?.lookup(tc.id);
  if (known?.state === "ended") return { kind: "finalized", toolCall: tc, result: known.result, isError: known.isError };
  if (!known) await announce(tc, config, emit);
  return endWith(tc, SKIPPED_AFTER_ABORT, config, emit);
}

async function endWith(tc: AgentToolCall, message: string, config: AgentLoopConfig, emit: EmitEvent): Promise<FinalizedOutcome> {
  const finalized: FinalizedOutcome = { kind: "finalized", toolCall: tc, result: createErrorToolResult(message), isError: true };
  await endCall(finalized, config, emit);
  return finalized;
}

/** The call's toolExecStart, and its `started` journal entry. */
async function announce(tc: AgentToolCall, config: AgentLoopConfig, emit: EmitEvent): Promise<void> {
  await emit({ type: "toolExecStart", toolCallId: tc.id, toolName: tc.name, arguments: announcedArguments(tc) });
  await config.journal?.markStarted(tc);
}

/** The call's toolExecEnd, and its `ended` journal entry. */
async function endCall(finalized: FinalizedOutcome, config: AgentLoopConfig, emit: EmitEvent): Promise<void> {
  await emitToolExecutionEnd(finalized, emit);
  await config.journal?.markEnded(finalized.toolCall, finalized.result, finalized.isError);
}

/** Clients get the arguments as an object when the model's JSON text parses, else as the text it sent. */
function announcedArguments(tc: AgentToolCall): unknown {
  const parsed = parseToolArguments(tc.arguments, tc.name);
  return parsed.ok ? parsed.args : tc.arguments;
}

/** Limits how many executions run at once; unlimited when `max` is absent or not positive. */
function createRunner(max: number | undefined): Runner {
  if (!max || max <= 0) return (run) => run();
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (run) => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await run();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
