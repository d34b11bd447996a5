/**
 * The core's vocabulary: content blocks, messages, tools, tool calls, outcomes, hooks and config.
 * Names follow the spec (agentTool → AgentTool, toolResultMessage → ToolResultMessage, …).
 * Everything here is plain data or plain functions: no runtime, no storage, no network.
 * Invariant: every AgentToolCall in an assistant message is answered by exactly one ToolResultMessage.
 */
import type { ContextSummary } from "./context-compaction.ts";
import type { LlmRequest } from "./llm-request.ts";

// ── Content ────────────────────────────────────────────────────────────────
export type TextContent = { type: "text"; text: string };
export type ImageContent = { type: "image"; data: string; mimeType: string };
export type ThinkingContent = { type: "thinking"; thinking: string };
/** A tool call as stored in an assistant message; `arguments` is what the model sent (object or JSON text). */
export type ToolCallContent = {
  type: "toolCall";
  id: string;
  name: string;
  arguments: ToolArguments | string;
  /** Set when the model's entry could not be read; kept so a resumed run answers it with the same error. */
  invalid?: string;
};
export type UserContent = TextContent | ImageContent;
export type AssistantContent = TextContent | ThinkingContent | ToolCallContent;
/** Other content kinds a tool result may carry (audio, links, embedded resources); a model that cannot take them gets a description. */
export type AudioContent = { type: "audio"; data: string; mimeType: string };
export type ResourceLinkContent = { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string };
export type EmbeddedResource = { uri: string; mimeType?: string; text?: string; blob?: string };
export type EmbeddedResourceContent = { type: "resource"; resource: EmbeddedResource };
export type ToolResultContent = TextContent | ImageContent | AudioContent | ResourceLinkContent | EmbeddedResourceContent;

export type ToolArguments = Record<string, unknown>;

// ── Messages ───────────────────────────────────────────────────────────────
export type Usage = {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
};

export type StopReason =
  | "stop"
  | "length"
  | "toolUse"
  | "tool_use_terminated"
  | "aborted"
  | "error"
  | "max_steps"
  /** A token budget was spent before a model call (AgentRun.checkBudget). */
  | "budget_exceeded"
  /** An input or output guardrail tripped. */
  | "guardrail";

/** A token budget as it stands: whose (`scope`), how many tokens it allows and how many were used. */
export type BudgetState = { scope: "session" | "user"; limit: number; used: number };
/** Before a model call: the budget that is spent, or how many tokens are left (undefined: no limit). */
export type BudgetVerdict = { exceeded: BudgetState } | { remaining: number | undefined };

/** An interface so that host features can mark where a message came from (optional fields, merged from their own modules). */
export interface UserMessage {
  role: "user";
  content: UserContent[];
  timestamp: number;
}

export type AssistantMessage = {
  role: "assistant";
  content: AssistantContent[];
  api?: string;
  provider?: string;
  model?: string;
  usage?: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp: number;
};

/** The spec writes the role as both "toolResult" and "tool"; we store "toolResult" and send "tool" on the wire. */
export type ToolResultMessage = {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: ToolResultContent[];
  details: Record<string, unknown>;
  usage?: Usage;
  addedToolNames?: string[];
  isError: boolean;
  timestamp: number;
};

export type AgentMessage = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * A model response before extraction: an AssistantMessage, or one still carrying the spec's raw blocks
 * (`tool_calls`/`tool_call`) or a top-level OpenAI `tool_calls` array. stopReason and timestamp may be absent.
 */
export type LlmResponse = Omit<AssistantMessage, "content" | "stopReason" | "timestamp"> & {
  content: unknown[];
  stopReason?: StopReason;
  timestamp?: number;
  tool_calls?: unknown[];
};

// ── Tools ──────────────────────────────────────────────────────────────────
export type JsonSchema = Record<string, unknown>;

export type AgentToolResult = {
  content: ToolResultContent[];
  details: Record<string, unknown>;
  usage?: Usage;
  terminate: boolean;
  /** Tools made available by this call (writeTool's drafts), reported on the result message. */
  addedToolNames?: string[];
};

export type OnPartialResult = (partialResult: unknown) => void;

/**
 * The narrow powers a tool may declare (AgentTool.capabilities), by name, each with the names of the
 * ToolExecutionContext fields it grants; the host grants only those declared. Host features add theirs,
 * and the fields, from their own modules by declaration merging (`declare module "…/core/types.ts"`).
 */
export interface ToolCapabilities {
  registerDraft: "registerDraft" | "bundledToolNames";
  /** Granted by the loop itself, per call: the tool may call the run's other tools (code mode, nested-tool-calls.ts). */
  toolCalls: "toolCalls";
}
export type ToolCapability = keyof ToolCapabilities;

/**
 * What a tool gets from its host while it runs: the session, the env keys and bindings it declared
 * (AgentTool.env) and the capabilities it declared. Never the host's whole env; the core passes it through.
 * Host features merge in the fields their capabilities grant and the services a host offers every tool
 * (each absent where a host does not offer it).
 */
export interface ToolExecutionContext {
  sessionId?: string;
  /** Only the keys the tool declared, and only those the host has. */
  env: Readonly<Record<string, unknown>>;
  /** Capability "registerDraft": makes a draft tool callable in the calling session only. */
  registerDraft?: (tool: AgentTool) => boolean;
  /** With "registerDraft": the bundled tools' names, which a draft can never take. */
  bundledToolNames?: () => readonly string[];
  /** Capability "toolCalls": this call's nested calls of the run's tools, through the whole pipeline. */
  toolCalls?: NestedToolCalls;
}

/**
 * A call's way to call the run's other tools (nested-tool-calls.ts): each goes through the whole pipeline
 * (validation, approval, hooks, timeout, journal) as call `<parent id>.<n>`, with its events carrying
 * `parentToolCallId`. Never rejects: a failure is an outcome with isError.
 */
export type NestedToolCalls = {
  /** The tools a nested call may name (the run's tools but the caller itself). */
  tools(): AgentTool[];
  call(name: string, args: unknown, signal?: AbortSignal): Promise<{ result: AgentToolResult; isError: boolean }>;
  /** Called with true when a nested call starts waiting for a person, false when it stops. */
  onHumanWait(listener: (waiting: boolean) => void): void;
};

/** Hints about a tool's behaviour for the clients a host serves its tools to; never a security boundary. */
export type ToolAnnotations = {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

export type AgentTool = {
  name: string;
  label: string;
  description: string;
  inputSchema: JsonSchema;
  execute: (
    toolCallId: string,
    args: ToolArguments,
    signal: AbortSignal | undefined,
    onPartialResult: OnPartialResult,
    context?: ToolExecutionContext,
  ) => AgentToolResult | Promise<AgentToolResult>;
  /** Runs before validation; returns the arguments to validate and execute. */
  prepareArguments?: (args: ToolArguments) => ToolArguments;
  /** Replaces the default JSON Schema validation; returns an error message or undefined. */
  validateRequiredArgs?: (args: ToolArguments) => string | undefined | null | void;
  /** Default false: one non-parallel tool makes its whole batch sequential. */
  parallelToolExecute?: boolean;
  /** Safe to run again after the host restarted during a call (otherwise it gets an error result). */
  idempotent?: boolean;
  /** Host policy hint: a human must approve each call. */
  requiresApproval?: boolean;
  /** Per-tool override of the loop's toolTimeoutMs. */
  timeoutMs?: number;
  /** Env keys and bindings the tool needs; its context.env holds these and nothing else. */
  env?: readonly string[];
  /** Capabilities the tool uses (e.g. writeTool's "registerDraft"). */
  capabilities?: readonly ToolCapability[];
  /** Behaviour hints a host serves with the tool. */
  annotations?: ToolAnnotations;
  /** JSON Schema of `details` when the tool promises a shape; a host serving the tool may then serve details as structured content. */
  outputSchema?: JsonSchema;
};

/** A tool call extracted from a model response. `invalid` marks an entry that could not be read. */
export type AgentToolCall = {
  type: "function";
  id: string;
  name: string;
  arguments: ToolArguments | string;
  invalid?: string;
  /** Set on a call another call made (code mode): the id of that call. */
  parentToolCallId?: string;
};

// ── Pipeline outcomes (prepare → execute → finalize) ─────────────────────
export type PreparedToolCall = {
  kind: "prepared";
  tool: AgentTool;
  toolCall: AgentToolCall;
  args: ToolArguments;
};
export type ImmediateOutcome = { kind: "immediate"; result: AgentToolResult; isError: boolean };
export type ExecutedOutcome = { kind: "executed"; result: AgentToolResult; isError: boolean };
export type FinalizedOutcome = {
  kind: "finalized";
  toolCall: AgentToolCall;
  result: AgentToolResult;
  isError: boolean;
};

export type AgentToolCallBatch = {
  messages: ToolResultMessage[];
  terminate: boolean;
};

// ── Context, state, hooks, config ──────────────────────────────────────────
export type ToolMap = ReadonlyMap<string, AgentTool>;

export type AgentContext = {
  systemPrompt: string;
  messages: readonly AgentMessage[];
  tools: ToolMap;
  /** Set by a context policy that left older messages out; the loop announces it as contextTrimmed. */
  trimmed?: ContextTrim;
};

/** What a context policy left out of a request (the full history stays in storage). */
export type ContextTrim = {
  omittedMessages: number;
  keptMessages: number;
  estimatedTokens: number;
  maxContextTokens: number;
};

export type AgentState = {
  systemPrompt: string;
  messages: AgentMessage[];
  tools: ToolMap;
  errorMessage?: string;
  /** The summary standing for the oldest messages in requests (compaction), if any. */
  summary?: ContextSummary | null;
  /** How many history messages come before `messages[0]` (a host that keeps only a window in memory). */
  historyStart?: number;
};

export type BeforeToolCallContext = {
  assistantMessage: AssistantMessage;
  toolCall: AgentToolCall;
  args: ToolArguments;
  context: AgentContext;
};
export type BeforeToolCallResult = { block?: boolean; reason?: string } | undefined | null | void;

export type AfterToolCallContext = {
  assistantMessage: AssistantMessage;
  toolCall: AgentToolCall;
  args: ToolArguments;
  result: AgentToolResult;
  isError: boolean;
  context: AgentContext;
};
export type AfterToolCallResult =
  | (Partial<Pick<AgentToolResult, "content" | "details" | "usage" | "terminate">> & { isError?: boolean })
  | undefined
  | null
  | void;

export type BeforeToolCall = (ctx: BeforeToolCallContext, signal?: AbortSignal) => BeforeToolCallResult | Promise<BeforeToolCallResult>;
export type AfterToolCall = (ctx: AfterToolCallContext, signal?: AbortSignal) => AfterToolCallResult | Promise<AfterToolCallResult>;

/**
 * Where a host records how far each tool call got, so a restarted run never silently re-runs one. The
 * core calls it at every transition of a call, in this order; the host clears it when the run ends.
 */
export type ToolCallJournal = {
  /** What is known of a call from an earlier attempt of this run. */
  lookup(toolCallId: string): ToolCallJournalEntry | undefined;
  /** The call was announced (toolExecStart); called once per call, never for one `lookup` knew. */
  markStarted(toolCall: AgentToolCall): void | Promise<void>;
  /** Called just before `execute` runs (after prepare and approval), so a restart can tell. */
  markExecuting(toolCall: AgentToolCall): void | Promise<void>;
  /** The call has its result (toolExecEnd). */
  markEnded(toolCall: AgentToolCall, result: AgentToolResult, isError: boolean): void | Promise<void>;
};
export type ToolCallJournalEntry =
  /** Announced (toolExecStart sent) but not yet executing, e.g. waiting for approval: prepare again. */
  ({ state: "started" } | { state: "executing" } | { state: "ended"; result: AgentToolResult; isError: boolean }) & {
    /** A nested call's fingerprint of its name and arguments (nestedCallKey), so a replay can tell it is the same call. */
    key?: string;
  };

export type ToolExecutionMode = "sequential" | "parallel";

/** A human's (or a policy's) answer to "may this call run?". */
export type ApprovalDecision = { approved: boolean; reason?: string };
/**
 * Asks whether a call may run, waiting as long as the host's own approval deadline says (so it is not
 * held to `hookTimeoutMs`); resolves `{approved:false}` when the run's signal aborts. Absent: every call may run.
 */
export type AwaitApproval = (
  ctx: BeforeToolCallContext,
  signal?: AbortSignal,
) => ApprovalDecision | undefined | Promise<ApprovalDecision | undefined>;

/** Chooses what the model sees at a step; the default keeps the request within `maxContextTokens`. */
export type PrepareContext = (state: AgentState, signal?: AbortSignal) => AgentContext | Promise<AgentContext>;
/** Turns the context into the wire request (default: OpenAI Chat Completions messages and tools). */
export type FormatMsgForLLM = (context: AgentContext, signal?: AbortSignal) => LlmRequest | Promise<LlmRequest>;

/**
 * How a run and its tool batches behave: the deployer's hooks and the limits. One type for the loop
 * (runAgentLoop) and for the batch and pipeline functions it calls; each reads the fields it needs.
 */
export type AgentLoopConfig = {
  prepareContext?: PrepareContext;
  formatMsgForLLM?: FormatMsgForLLM;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  awaitApproval?: AwaitApproval;
  /** Default "sequential". */
  toolExecution?: ToolExecutionMode;
  /** Cap on concurrently executing tools in a parallel batch; unbounded when absent. */
  maxParallelToolCalls?: number;
  /** A call running longer than this becomes an error result; none when absent. */
  toolTimeoutMs?: number;
  /** A hook (prepareContext, formatMsgForLLM, beforeToolCall, afterToolCall) running longer than this fails. */
  hookTimeoutMs?: number;
  /** Results larger than this (text characters plus image data) are cut, with a note saying so. */
  maxToolResultChars?: number;
  /** Request budget (estimated tokens) of the default prepareContext and of compaction. */
  maxContextTokens?: number;
  /**
   * Compaction (context-compaction.ts): a request past this share of `maxContextTokens` has its oldest
   * messages summarised first. Absent: no compaction.
   */
  compactAt?: number;
  /** LLM calls allowed in one run. */
  maxSteps?: number;
  /** Passed to every tool's execute as its `context`. */
  toolContext?: ToolExecutionContext;
  journal?: ToolCallJournal;
};
