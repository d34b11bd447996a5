/**
 * The agent loop (docs/architecture.md "Agent semantics") as one function of its inputs: state, hooks, queues, sink and signal.
 * Each step: finish any unanswered tool calls (a resumed run) → drain pending input (follow-ups first)
 * → prepareContext → formatMsgForLLM → llmCall → extract → execute → append → again, until a text
 * answer, a terminating batch, an abort, an LLM error or the step limit. Returns the run's one final message.
 * Every hook is bounded by the signal and `hookTimeoutMs`; a message is stored (onMessage) before it
 * enters the in-memory history.
 */
import { budgetContext, DEFAULT_MAX_CONTEXT_TOKENS } from "./context-budget.ts";
import { type ContextSummary, Compactor, isContextOverflow } from "./context-compaction.ts";
import { executeToolCalls } from "./tool-batch.ts";
import { extractToolCalls, toolCallsOf } from "./tool-call-extraction.ts";
import { formatMsgForLLM as defaultFormatMsgForLLM } from "./format-messages.ts";
import type { LlmRequest } from "./llm-request.ts";
import { checkGuardrails, type Guardrail, type GuardrailTrip, HeldDeltas, userMessageText } from "./guardrails.ts";
import { runHook } from "./run-hook.ts";
import { describeError } from "./tool-results.ts";
import type {
  AgentContext,
  AgentLoopConfig,
  AgentMessage,
  AgentState,
  AgentToolCall,
  AgentToolCallBatch,
  AssistantMessage,
  BudgetVerdict,
  LlmResponse,
  StopReason,
  TextContent,
  Usage,
  UserMessage,
} from "./types.ts";
import type { EmitEvent } from "./events.ts";

export type { LlmResponse } from "./types.ts";

export const DEFAULT_MAX_STEPS = 32;
export const TERMINATED_TEXT = "Tool execution completed.";
export const TERMINATED_ERROR = "One or more tool calls failed";
export const INPUT_REFUSAL = "I can't help with that message.";
export const OUTPUT_REFUSAL = "I can't share that answer.";

/** What an adapter tells about a failed attempt it is about to retry. */
export type LlmRetryInfo = { retryNumber: number; delayMs: number; error: unknown };
export type LlmCallOptions = {
  signal?: AbortSignal;
  onTextDelta?: (text: string) => void;
  onRetry?: (info: LlmRetryInfo) => void;
  /** At most this many output tokens (`max_tokens`): what is left of a token budget. */
  maxTokens?: number;
};
export type LlmCall = (request: LlmRequest, options: LlmCallOptions) => Promise<LlmResponse>;

/** The hooks a deployer sets in one configuration module (the model comes separately, as `llmCall`). */
export type AgentHooks = Pick<AgentLoopConfig, "prepareContext" | "formatMsgForLLM" | "beforeToolCall" | "afterToolCall">;

/** One run: its inputs (state, model, sink, queues, storage) and its configuration. */
export type AgentRun = AgentLoopConfig & {
  state: AgentState;
  llmCall: LlmCall;
  emit: EmitEvent;
  /** Pending user messages at a step boundary, follow-ups first; drained into history before each LLM call. */
  drainPending?: () => UserMessage[] | Promise<UserMessage[]>;
  /** Persists a message before the loop appends it to `state.messages` (append-only). */
  onMessage?: (message: AgentMessage) => void | Promise<void>;
  /** Asked before every model call: a spent budget ends the run; what is left caps the call's `max_tokens`. */
  checkBudget?: () => BudgetVerdict | Promise<BudgetVerdict>;
  /** Input guardrails see each drained user message before it enters history; output ones each answer as it streams. */
  guardrails?: { input: readonly Guardrail[]; output: readonly Guardrail[] };
  /** A resumed run does not announce itself again. */
  resumed?: boolean;
  /** Index in `state.messages` of the run's first message (a resumed run's); default: where history ends now. */
  runStart?: number;
  /** Stores a new summary (compaction) with the summary call's usage; called right after contextCompacted. */
  onCompacted?: (summary: ContextSummary, usage: Usage | undefined) => void | Promise<void>;
  /** The summary call failed: the run goes on with the context policy's trimming. Must not throw. */
  onCompactionFailed?: (error: unknown) => void;
  now?: () => number;
};

/** The state as it is: no copy (the loop never mutates a context it handed out), no budget. */
export const plainContext = (state: AgentState): AgentContext => ({
  systemPrompt: state.systemPrompt,
  messages: state.messages,
  tools: state.tools,
});

export async function runAgentLoop(run: AgentRun, signal?: AbortSignal): Promise<AssistantMessage> {
  const { state, emit } = run;
  const now = run.now ?? Date.now;
  const maxSteps = run.maxSteps ?? DEFAULT_MAX_STEPS;
  const prepareContext = run.prepareContext ?? ((s: AgentState) => budgetContext(s, run.maxContextTokens));
  const formatMsgForLLM = run.formatMsgForLLM ?? ((context: AgentContext) => defaultFormatMsgForLLM(context));
  const knownIds = toolCallIdsOf(state.messages);
  const inputGuardrails = run.guardrails?.input ?? [];
  const outputGuardrails = run.guardrails?.output ?? [];
  let announcedTrim: number | undefined;
  const maxContextTokens = run.maxContextTokens ?? DEFAULT_MAX_CONTEXT_TOKENS;
  const compactor =
    run.compactAt === undefined
      ? undefined
      : new Compactor(state, {
          maxContextTokens,
          compactAt: run.compactAt,
          runStart: run.runStart ?? state.messages.length,
          llmCall: run.llmCall,
          ...(run.resumed ? {} : { promptTokens: lastPromptTokens(state.messages) }),
        });
  // A summary call that failed is not tried again in this run: the context policy trims instead.
  let compactionFailed = false;
  /**
   * Summarises the oldest messages (also when not due: after an overflow); true when a summary took their
   * place. The summary call is a model call like the step's: capped to what is left of the budget.
   */
  const compact = async (force: boolean, maxTokens: number | undefined): Promise<boolean> => {
    if (!compactor || compactionFailed) return false;
    let done: Awaited<ReturnType<Compactor["compact"]>>;
    try {
      done = await compactor.compact(signal, force, maxTokens);
    } catch (err) {
      if (signal?.aborted) throw err;
      compactionFailed = true;
      run.onCompactionFailed?.(err);
      return false;
    }
    if (!done) return false;
    await emit({ type: "contextCompacted", ...done.result });
    await run.onCompacted?.(done.summary, done.usage);
    return true;
  };

  const append = async (message: AgentMessage) => {
    // Storage first: a message that could not be stored is not in memory either.
    await run.onMessage?.(message);
    state.messages.push(message);
    if (message.role === "assistant") for (const call of toolCallsOf(message)) knownIds.add(call.id);
    await emit({ type: "messageEnd", message });
  };
  const finish = async (response: AssistantMessage, addToHistory: boolean) => {
    if (addToHistory) await append(response);
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
  const refuse = async (trip: GuardrailTrip, text: string, usage?: AssistantMessage["usage"]) => {
    await emit({ type: "guardrailTripped", ...trip });
    const response = stopped("guardrail", `Refused by the ${trip.stage} guardrail "${trip.guardrail}": ${trip.reason}`, text);
    if (usage) response.usage = usage;
    return finish(response, true);
  };
  /** Before each model call: a spent budget ends the run; what is left caps the call's `max_tokens`. */
  const checkBudget = async (): Promise<{ stop: AssistantMessage } | { maxTokens: number | undefined }> => {
    const verdict = await run.checkBudget?.();
    if (!verdict || !("exceeded" in verdict)) return { maxTokens: verdict?.remaining };
    const { scope, limit, used } = verdict.exceeded;
    await emit({ type: "budgetExceeded", scope, limit, used });
    const which = scope === "session" ? "this session's" : "your daily";
    return {
      stop: await finish(
        stopped(
          "budget_exceeded",
          `Token budget spent: ${which} budget is ${limit} tokens and ${used} were used`,
          `I stopped: ${which} token budget is spent.`,
        ),
        true,
      ),
    };
  };
  const contextFor = (s: AgentState) => runHook("prepareContext", (hookSignal) => prepareContext(s, hookSignal), run.hookTimeoutMs, signal);
  // `extracted` keeps the extractor's `invalid` markers, which the stored toolCall blocks cannot carry.
  const runBatch = async (assistant: AssistantMessage, extracted?: AgentToolCall[]): Promise<AgentToolCallBatch | undefined> => {
    const calls = unansweredToolCalls(state.messages, assistant, extracted);
    if (calls.length === 0) return undefined;
    // The batch needs a context for tool lookup and hooks; a failing policy must not leave calls unanswered.
    const view = compactor ? compactor.view() : state;
    const context = await contextFor(view).catch(() => plainContext(view));
    const batch = await executeToolCalls(context, assistant, calls, run, emit, signal);
    for (const message of batch.messages) await append(message);
    return batch;
  };

  if (!run.resumed) await emit({ type: "runStart" });

  // A resumed run may stop between an assistant's tool calls and their results: answer them first.
  const pendingAssistant = findAssistantAwaitingResults(state.messages);
  if (pendingAssistant) {
    const batch = await runBatch(pendingAssistant);
    if (batch?.terminate) return finish(terminatedResponse(pendingAssistant, batch, now()), false);
  }

  for (let step = 0; ; step++) {
    if (signal?.aborted) return finish(stopped("aborted", "Aborted by request"), true);
    // At the limit nothing more is drained: pending messages stay queued and start the next run.
    if (step >= maxSteps) {
      return finish(
        stopped("max_steps", `Stopped after ${maxSteps} LLM calls (maxSteps)`, `I stopped after ${maxSteps} steps without a final answer.`),
        true,
      );
    }
    for (const message of (await run.drainPending?.()) ?? []) {
      // A refused message never enters history, so no model request ever carries it.
      const trip = await checkGuardrails(inputGuardrails, userMessageText(message), "input", state.messages, run.hookTimeoutMs, signal);
      if (trip) return refuse(trip, INPUT_REFUSAL);
      await append(message);
    }

    const budget = await checkBudget();
    if ("stop" in budget) return budget.stop;
    let { maxTokens } = budget;

    let response: LlmResponse | undefined;
    // An answer meaning "context too long" compacts (or, failing that, trims harder) and tries the step once more.
    let overflowRecovery: "none" | "compacted" | "trimmed" = "none";
    while (response === undefined) {
      let streamed = false;
      // Output guardrails: each delta waits until every one passed the text so far; a trip stops the call.
      const call = outputGuardrails.length > 0 ? new AbortController() : undefined;
      const held = call
        ? new HeldDeltas(
            (text) => checkGuardrails(outputGuardrails, text, "output", state.messages, run.hookTimeoutMs, signal),
            (text) => {
              streamed = true;
              void emit({ type: "messageDelta", text });
            },
            () => call.abort(new Error("output guardrail tripped")),
          )
        : undefined;
      const callSignal = call ? (signal ? AbortSignal.any([signal, call.signal]) : call.signal) : signal;
      try {
        if (overflowRecovery === "none" && compactor?.due() && (await compact(false, maxTokens))) {
          // The summary call spent tokens: the step's call is judged, and capped, on what is left now.
          const after = await checkBudget();
          if ("stop" in after) return after.stop;
          maxTokens = after.maxTokens;
        }
        const view = compactor ? compactor.view() : state;
        const context = overflowRecovery === "trimmed" ? budgetContext(view, Math.floor(maxContextTokens / 2)) : await contextFor(view);
        if (context.trimmed && context.trimmed.omittedMessages !== announcedTrim) {
          announcedTrim = context.trimmed.omittedMessages;
          await emit({ type: "contextTrimmed", ...context.trimmed });
        }
        const request = await runHook("formatMsgForLLM", (hookSignal) => formatMsgForLLM(context, hookSignal), run.hookTimeoutMs, signal);
        await emit({ type: "messageStart", role: "assistant" });
        const answer = await run.llmCall(request, {
          ...(callSignal ? { signal: callSignal } : {}),
          ...(maxTokens === undefined ? {} : { maxTokens }),
          onTextDelta: (text) => {
            if (held) return held.push(text);
            streamed = true;
            void emit({ type: "messageDelta", text });
          },
          onRetry: ({ retryNumber, delayMs, error }) =>
            void emit({ type: "llmRetry", retry: retryNumber, delayMs, message: describeError(error) }),
        });
        if (!answer || typeof answer !== "object" || !Array.isArray(answer.content)) {
          throw new Error(`llmCall returned an invalid response: ${describeError(answer)}`);
        }
        compactor?.observe(answer);
        if (held) {
          await held.settled();
          // The whole answer passes too (an adapter that does not stream sent no delta).
          const text = answerText(answer);
          const trip =
            held.tripped ??
            (text !== "" && text !== held.passedText
              ? await checkGuardrails(outputGuardrails, text, "output", state.messages, run.hookTimeoutMs, signal)
              : undefined);
          if (trip && !signal?.aborted) {
            if (streamed) await emit({ type: "messageAbandoned", reason: `Refused by the output guardrail "${trip.guardrail}"` });
            return refuse(trip, OUTPUT_REFUSAL, answer.usage);
          }
        }
        response = answer;
      } catch (err) {
        await held?.settled();
        if (held?.tripped && !signal?.aborted) {
          if (streamed) await emit({ type: "messageAbandoned", reason: `Refused by the output guardrail "${held.tripped.guardrail}"` });
          return refuse(held.tripped, OUTPUT_REFUSAL);
        }
        if (streamed) await emit({ type: "messageAbandoned", reason: signal?.aborted ? "Aborted by request" : describeError(err) });
        if (signal?.aborted) return finish(stopped("aborted", "Aborted by request"), true);
        if (overflowRecovery === "none" && isContextOverflow(err)) {
          let compacted: boolean;
          try {
            compacted = await compact(true, maxTokens);
          } catch (compactionError) {
            if (signal?.aborted) return finish(stopped("aborted", "Aborted by request"), true);
            throw compactionError;
          }
          if (compacted) {
            const after = await checkBudget();
            if ("stop" in after) return after.stop;
            maxTokens = after.maxTokens;
            overflowRecovery = "compacted";
            continue;
          }
          // No summary could be made: the default policy trims to half the budget (a deployer's own policy is theirs).
          if (!run.prepareContext) {
            overflowRecovery = "trimmed";
            continue;
          }
        }
        const message = describeError(err);
        await emit({ type: "error", message });
        return finish(stopped("error", message), true);
      }
    }

    // The run's journal knows every call the run made, also those that left memory before a resumed run
    // loaded its window: a new call reusing such an id is another call, never the old one's result or decision.
    const isTaken = (id: string) => knownIds.has(id) || run.journal?.lookup(id) !== undefined;
    const { message: assistant, toolCalls } = extractToolCalls(response, now(), isTaken);
    // Stored before its results, so a restart finds the calls and history stays valid for the wire.
    await append(assistant);
    if (toolCalls.length === 0) return finish(assistant, false);

    const batch = await runBatch(assistant, toolCalls);
    if (batch?.terminate) return finish(terminatedResponse(assistant, batch, now()), false);
  }
}

/** The run's final response when every call of a batch asked to terminate: a fixed text plus the tools' texts. */
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

/** The text blocks of a model response, joined as they stream. */
function answerText(response: LlmResponse): string {
  let text = "";
  for (const block of response.content) {
    if (block && typeof block === "object" && (block as { type?: unknown }).type === "text")
      text += String((block as TextContent).text ?? "");
  }
  return text;
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

/** The prompt tokens the newest answer in `messages` reported (judges the first step's size). */
function lastPromptTokens(messages: readonly AgentMessage[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant") return m.usage?.inputTokens;
  }
  return undefined;
}

/** The tool-call ids a history already uses (read once per run, then kept up to date by append). */
function toolCallIdsOf(messages: readonly AgentMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) if (m.role === "assistant") for (const call of toolCallsOf(m)) ids.add(call.id);
  return ids;
}
