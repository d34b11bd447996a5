/**
 * The agent loop (spec §5–6) as one function of its inputs: state, hooks, queues, sink and signal.
 * Each step: finish any unanswered tool calls (a resumed run) → drain pending input (follow-ups first)
 * → prepareContext → formatMsgForLLM → llmCall → extract → execute → append → again, until a text
 * answer, a terminating batch, an abort, an LLM error or the step limit. Returns the run's one final message.
 * Cost per step is independent of history length except what formatting for the wire needs.
 */
import { executeToolCalls } from "./tool-batch.ts";
import { extractToolCalls, toolCallsOf } from "./tool-call-extraction.ts";
import { formatMsgForLLM as defaultFormatMsgForLLM, type LlmRequest } from "./format-messages.ts";
import { describeError } from "./tool-results.ts";
import type {
  AfterToolCall,
  AgentContext,
  AgentLoopConfig,
  AgentMessage,
  AgentState,
  AgentToolCall,
  AgentToolCallBatch,
  AssistantMessage,
  BeforeToolCall,
  EmitEvent,
  LlmResponse,
  StopReason,
  TextContent,
  ToolCallJournal,
  ToolExecutionContext,
  ToolExecutionMode,
  UserMessage,
} from "./types.ts";

export type { LlmResponse } from "./types.ts";

export const DEFAULT_MAX_STEPS = 32;
export const TERMINATED_TEXT = "Tool execution completed.";
export const TERMINATED_ERROR = "One or more tool calls failed";

export type LlmCallOptions = { signal?: AbortSignal; onTextDelta?: (text: string) => void };
export type LlmCall = (request: LlmRequest, options: LlmCallOptions) => Promise<LlmResponse>;

export type AgentHooks = {
  /** Default: the state as it is (no deep copy; the loop never mutates a context it handed out). */
  prepareContext?: (state: AgentState) => AgentContext | Promise<AgentContext>;
  formatMsgForLLM?: (context: AgentContext) => LlmRequest | Promise<LlmRequest>;
  llmCall: LlmCall;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
};

export type AgentLoopOptions = {
  state: AgentState;
  hooks: AgentHooks;
  emit: EmitEvent;
  toolExecution?: ToolExecutionMode;
  maxParallelToolCalls?: number;
  toolTimeoutMs?: number;
  maxToolResultChars?: number;
  toolContext?: ToolExecutionContext;
  journal?: ToolCallJournal;
  /** LLM calls allowed in one run. */
  maxSteps?: number;
  /** Pending user messages at a step boundary, follow-ups first (the spec's Step 1). */
  drainPending?: () => UserMessage[] | Promise<UserMessage[]>;
  /** Persists a message the loop appended to `state.messages` (append-only). */
  onMessage?: (message: AgentMessage) => void | Promise<void>;
  /** A resumed run does not announce itself again. */
  resumed?: boolean;
  now?: () => number;
};

export const defaultPrepareContext = (state: AgentState): AgentContext => ({
  systemPrompt: state.systemPrompt,
  messages: state.messages,
  tools: state.tools,
});

export async function runAgentLoop(options: AgentLoopOptions, signal?: AbortSignal): Promise<AssistantMessage> {
  const { state, hooks, emit } = options;
  const now = options.now ?? Date.now;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const prepareContext = hooks.prepareContext ?? defaultPrepareContext;
  const formatMsgForLLM = hooks.formatMsgForLLM ?? defaultFormatMsgForLLM;

  const append = async (message: AgentMessage) => {
    state.messages.push(message);
    await options.onMessage?.(message);
    await emit({ type: "messageEnd", message });
  };
  const finish = async (response: AssistantMessage, addToHistory: boolean) => {
    if (addToHistory) await append(response);
    state.activeRun = false;
    state.errorMessage = response.errorMessage;
    await emit({ type: "runEnd", response, stopReason: response.stopReason });
    return response;
  };
  const stopped = (stopReason: StopReason, errorMessage: string, text?: string): AssistantMessage => ({
    role: "assistant",
    content: text ? [{ type: "text", text }] : [],
    stopReason,
    errorMessage,
    timestamp: now(),
  });
  const loopConfig = (context: AgentContext): AgentLoopConfig => ({
    tools: context.tools,
    beforeToolCall: hooks.beforeToolCall,
    afterToolCall: hooks.afterToolCall,
    toolExecution: options.toolExecution ?? "sequential",
    maxParallelToolCalls: options.maxParallelToolCalls,
    toolTimeoutMs: options.toolTimeoutMs,
    maxToolResultChars: options.maxToolResultChars,
    toolContext: options.toolContext,
    journal: options.journal,
  });
  // `extracted` keeps the extractor's `invalid` markers, which the stored toolCall blocks cannot carry.
  const runBatch = async (assistant: AssistantMessage, extracted?: AgentToolCall[]): Promise<AgentToolCallBatch | undefined> => {
    const calls = unansweredToolCalls(state.messages, assistant, extracted);
    if (calls.length === 0) return undefined;
    const context = await prepareContext(state);
    const batch = await executeToolCalls(context, assistant, calls, loopConfig(context), emit, signal);
    for (const message of batch.messages) await append(message);
    return batch;
  };

  state.activeRun = true;
  if (!options.resumed) await emit({ type: "runStart" });

  // A resumed run may stop between an assistant's tool calls and their results: answer them first.
  const pendingAssistant = findAssistantAwaitingResults(state.messages);
  if (pendingAssistant) {
    const batch = await runBatch(pendingAssistant);
    if (batch?.terminate) return finish(terminatedResponse(pendingAssistant, batch, now()), false);
  }

  for (let step = 0; ; step++) {
    if (signal?.aborted) return finish(stopped("aborted", "Aborted by request"), true);
    for (const message of (await options.drainPending?.()) ?? []) await append(message);
    if (step >= maxSteps) {
      return finish(stopped("max_steps", `Stopped after ${maxSteps} LLM calls (maxSteps)`, `I stopped after ${maxSteps} steps without a final answer.`), true);
    }

    let response: LlmResponse;
    try {
      const context = await prepareContext(state);
      const request = await formatMsgForLLM(context);
      await emit({ type: "messageStart", role: "assistant" });
      response = await hooks.llmCall(request, { signal, onTextDelta: (text) => void emit({ type: "messageDelta", text }) });
      if (!response || typeof response !== "object" || !Array.isArray(response.content)) {
        throw new Error(`llmCall returned an invalid response: ${describeError(response)}`);
      }
    } catch (err) {
      if (signal?.aborted) return finish(stopped("aborted", "Aborted by request"), true);
      const message = describeError(err);
      await emit({ type: "error", message });
      return finish(stopped("error", message), true);
    }

    const { message: assistant, toolCalls } = extractToolCalls(response, now());
    // Stored before its results, so a restart finds the calls and history stays valid for the wire.
    await append(assistant);
    if (toolCalls.length === 0) return finish(assistant, false);

    const batch = await runBatch(assistant, toolCalls);
    if (batch?.terminate) return finish(terminatedResponse(assistant, batch, now()), false);
  }
}

/** The spec's final response for a batch in which every call asked to terminate. */
export function terminatedResponse(assistant: AssistantMessage, batch: AgentToolCallBatch, timestamp: number): AssistantMessage {
  const content: TextContent[] = [{ type: "text", text: TERMINATED_TEXT }];
  for (const message of batch.messages) {
    for (const block of message.content) if (block.type === "text") content.push({ type: "text", text: block.text });
  }
  const response: AssistantMessage = {
    role: "assistant",
    content,
    stopReason: "tool_use_terminated",
    timestamp,
  };
  if (assistant.api) response.api = assistant.api;
  if (assistant.provider) response.provider = assistant.provider;
  if (assistant.model) response.model = assistant.model;
  if (assistant.usage) response.usage = assistant.usage;
  if (batch.messages.some((m) => m.isError)) response.errorMessage = TERMINATED_ERROR;
  return response;
}

/** The last assistant message if some of its tool calls have no result yet (looks only at the tail). */
function findAssistantAwaitingResults(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "toolResult") continue;
    if (m.role === "assistant" && unansweredToolCalls(messages, m).length > 0) return m;
    return undefined;
  }
  return undefined;
}

function unansweredToolCalls(messages: readonly AgentMessage[], assistant: AssistantMessage, calls = toolCallsOf(assistant)) {
  if (calls.length === 0) return calls;
  const answered = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m === assistant) break;
    if (m.role === "toolResult") answered.add(m.toolCallId);
  }
  return calls.filter((c) => !answered.has(c.id));
}
