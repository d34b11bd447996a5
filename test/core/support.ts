/**
 * Shared helpers for the core unit tests: a scripted model (queued responses, recorded requests),
 * a recording event sink, tool factories and a one-call batch runner.
 * Used only by test/core/*.test.ts; nothing here touches a network, a clock mock or storage.
 * Invariant: a scripted model with an empty queue throws, so a test never silently gets a default reply.
 */
import { executeToolCalls } from "../../src/core/tool-batch.ts";
import type { LlmCall, LlmCallOptions, LlmResponse } from "../../src/core/agent-loop.ts";
import type { AgentEvent, AgentEventType } from "../../src/core/events.ts";
import type { LlmRequest } from "../../src/core/llm-request.ts";
import type {
  AgentContext,
  AgentLoopConfig,
  AgentMessage,
  AgentState,
  AgentTool,
  AgentToolCall,
  AgentToolCallBatch,
  AgentToolResult,
  AssistantMessage,
  ToolArguments,
  ToolMap,
  UserMessage,
} from "../../src/core/types.ts";
import { textOf } from "../support/text.ts";
import { sleep } from "../support/time.ts";

/** The shared helpers, re-exported for the core tests that import everything from here. */
export { sleep, textOf };

// ── Scripted model ─────────────────────────────────────────────────────────
/** A queued step: a response, an error to throw, or a function of the request (to inspect it mid-run). */
export type ScriptedStep = LlmResponse | Error | ((request: LlmRequest) => LlmResponse | Promise<LlmResponse>);

export type ScriptedModel = {
  llmCall: LlmCall;
  /** Every request the loop sent, in order. */
  requests: LlmRequest[];
  options: LlmCallOptions[];
  /** Responses not consumed yet. */
  remaining: () => number;
};

export function scriptedModel(steps: ScriptedStep[]): ScriptedModel {
  const queue = [...steps];
  const requests: LlmRequest[] = [];
  const options: LlmCallOptions[] = [];
  const llmCall: LlmCall = async (request, opts) => {
    // Snapshot, because the loop keeps appending to the arrays the request was built from.
    requests.push(structuredClone(request));
    options.push(opts);
    const step = queue.shift();
    if (step === undefined) throw new Error("scripted model: no response left in the queue");
    if (step instanceof Error) throw step;
    return typeof step === "function" ? step(request) : step;
  };
  return { llmCall, requests, options, remaining: () => queue.length };
}

/** A plain text answer. */
export function reply(text: string): LlmResponse {
  return { role: "assistant", content: [{ type: "text", text }], stopReason: "stop", timestamp: 1 };
}

/** An answer carrying tool calls as our own `toolCall` blocks. */
export function callTools(...calls: { id: string; name: string; args?: ToolArguments | string }[]): LlmResponse {
  return {
    role: "assistant",
    content: calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args ?? {} })),
    stopReason: "toolUse",
    timestamp: 1,
  };
}

// ── Recording sink ─────────────────────────────────────────────────────────
export type RecordingSink = {
  emit: (event: AgentEvent) => void;
  events: AgentEvent[];
  types: () => AgentEventType[];
  ofType: <T extends AgentEventType>(type: T) => Extract<AgentEvent, { type: T }>[];
};

export function recordingSink(): RecordingSink {
  const events: AgentEvent[] = [];
  return {
    emit: (event) => void events.push(event),
    events,
    types: () => events.map((e) => e.type),
    ofType: <T extends AgentEventType>(type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type),
  };
}

// ── Tools ──────────────────────────────────────────────────────────────────
export function textResult(text: string, extra: Partial<AgentToolResult> = {}): AgentToolResult {
  return { content: [{ type: "text", text }], details: {}, terminate: false, ...extra };
}

/** A tool with harmless defaults: an open object schema and an execute answering `<name> done`. */
export function makeTool(name: string, overrides: Partial<AgentTool> = {}): AgentTool {
  return {
    name,
    label: name,
    description: `The ${name} test tool`,
    inputSchema: { type: "object", properties: {} },
    execute: () => textResult(`${name} done`),
    ...overrides,
  };
}

/** Counts how many tracked executions overlap. */
export type Concurrency = { inFlight: number; max: number; started: string[]; ended: string[] };

export const concurrency = (): Concurrency => ({ inFlight: 0, max: 0, started: [], ended: [] });

/** A tool that takes `ms` to run and records overlap in `tracker`. */
export function slowTool(name: string, ms: number, tracker: Concurrency, overrides: Partial<AgentTool> = {}): AgentTool {
  return makeTool(name, {
    parallelToolExecute: true,
    async execute(toolCallId) {
      tracker.inFlight++;
      tracker.max = Math.max(tracker.max, tracker.inFlight);
      tracker.started.push(toolCallId);
      await sleep(ms);
      tracker.inFlight--;
      tracker.ended.push(toolCallId);
      return textResult(`${name} done`);
    },
    ...overrides,
  });
}

export const toolMap = (...tools: AgentTool[]): ToolMap => new Map(tools.map((t) => [t.name, t]));

// ── Messages and calls ─────────────────────────────────────────────────────
export function userMessage(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp: 1 };
}

export function toolCall(id: string, name: string, args: ToolArguments | string = {}): AgentToolCall {
  return { type: "function", id, name, arguments: args };
}

export function assistantWith(calls: readonly AgentToolCall[]): AssistantMessage {
  return {
    role: "assistant",
    content: calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.arguments })),
    stopReason: "toolUse",
    timestamp: 1,
  };
}

export function newState(tools: AgentTool[] = [], messages: AgentMessage[] = []): AgentState {
  return { systemPrompt: "You are a test agent.", messages, tools: toolMap(...tools) };
}

/** A drainPending that hands over `messages` at the first step boundary, then nothing. */
export function drainOnce(...messages: UserMessage[]): () => UserMessage[] {
  let pending = messages;
  return () => {
    const out = pending;
    pending = [];
    return out;
  };
}

// ── Batch runner ───────────────────────────────────────────────────────────
export type BatchRun = { batch: AgentToolCallBatch; sink: RecordingSink };

/** Runs `calls` as one batch against `tools`; config defaults to sequential with no hooks. */
export async function runBatch(
  tools: AgentTool[],
  calls: AgentToolCall[],
  config: Partial<AgentLoopConfig> = {},
  signal?: AbortSignal,
): Promise<BatchRun> {
  const map = toolMap(...tools);
  const context: AgentContext = { systemPrompt: "", messages: [], tools: map };
  const sink = recordingSink();
  const fullConfig: AgentLoopConfig = { toolExecution: "sequential", ...config };
  const batch = await executeToolCalls(context, assistantWith(calls), calls, fullConfig, sink.emit, signal);
  return { batch, sink };
}

/** Runs a single call and returns its one result message. */
export async function runOne(
  tool: AgentTool | undefined,
  args: ToolArguments | string,
  config: Partial<AgentLoopConfig> = {},
  signal?: AbortSignal,
) {
  const name = tool?.name ?? "missing";
  const { batch, sink } = await runBatch(tool ? [tool] : [], [toolCall("c1", name, args)], config, signal);
  const message = batch.messages[0];
  if (!message || batch.messages.length !== 1) throw new Error(`expected one result, got ${batch.messages.length}`);
  return { message, text: textOf(message), sink };
}
