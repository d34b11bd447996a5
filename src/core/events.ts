/**
 * The one event union the runtime emits, tagged by `type`. The core emits these bare; the host's sink
 * stamps them with `seq`, `sessionId`, `runId` and `ts` before storing and streaming (the wire union in
 * src/wire/events.ts is derived from this one, so a type added here reaches every consumer).
 * Per tool call the order is toolExecStart → toolExecUpdate* → toolExecEnd, never an update after the end.
 */
import type { AgentMessage, AgentToolResult, AssistantMessage, BudgetState, ContextTrim, StopReason } from "./types.ts";

/** An event that carries nothing but its `type` (and, once stored, its stamp). */
export type NoFields = Record<never, never>;

/** The core's own events by `type`: each entry is the event's fields besides its tag. */
export interface CoreEvents {
  runStart: NoFields;
  messageStart: { role: "assistant" };
  messageDelta: { text: string };
  messageEnd: { message: AgentMessage };
  /** `parentToolCallId`: the call (runCode) whose program made this nested call. */
  toolExecStart: { toolCallId: string; toolName: string; arguments: unknown; parentToolCallId?: string };
  toolExecUpdate: { toolCallId: string; toolName: string; arguments: unknown; partialResult: unknown; parentToolCallId?: string };
  toolExecEnd: { toolCallId: string; toolName: string; result: AgentToolResult; isError: boolean; parentToolCallId?: string };
  toolApprovalRequired: { toolCallId: string; toolName: string; arguments: unknown; reason?: string; parentToolCallId?: string };
  runEnd: { response: AssistantMessage; stopReason: StopReason };
  /** An LLM request failed and will be tried again after `delayMs` (retry number `retry`, from 1). */
  llmRetry: { retry: number; delayMs: number; message: string };
  error: { message: string };
  /** The request left out older messages to stay within the context budget (history keeps them). */
  contextTrimmed: ContextTrim;
  /**
   * The oldest messages were summarised (compaction): requests now carry the summary in their place.
   * `summarizedMessages` counts history from its first message; history keeps every original message.
   */
  contextCompacted: { summarizedMessages: number; tokensBefore: number; tokensAfter: number };
  /** The partial assistant message being streamed will not be completed (a failed or resumed LLM call): drop it. */
  messageAbandoned: { reason: string };
  /** A token budget was spent before a model call: the run ends with stopReason "budget_exceeded". */
  budgetExceeded: BudgetState;
  /** A guardrail refused a user message (input) or the answer so far (output): the run ends with stopReason "guardrail". */
  guardrailTripped: { guardrail: string; stage: "input" | "output"; reason: string };
}

/**
 * The host's events by `type`, shaped like CoreEvents. Empty here: each host feature adds its own from
 * its own module (`declare module "…/core/events.ts"`), so the core never changes for a new feature.
 * A merged entry counts only in a program that loads its module; the host keeps them all loaded
 * wherever the union is read (src/host-vocabulary.ts).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface HostEvents {}

type EventFields = CoreEvents & HostEvents;

/** One plain object type (not an intersection), so editors and error messages show the event's fields. */
type Tagged<T> = { [P in keyof T]: T[P] };

/** Every event: one member per entry of CoreEvents and HostEvents, its key as its `type`. */
export type AgentEvent = { [K in keyof EventFields]: Tagged<{ type: K } & EventFields[K]> }[keyof EventFields];

export type AgentEventType = AgentEvent["type"];

/** The event sink. It may return a promise; the pipeline waits for update deliveries before finalizing. */
export type EmitEvent = (event: AgentEvent) => void | Promise<void>;
