/**
 * Turns Workers AI text-generation output into the parts of an LlmResponse, for every shape the binding
 * documents: the classic `{response, tool_calls: [{name, arguments}], usage}`, the same with OpenAI-like
 * calls (`{id, type, function: {name, arguments}}`), a Chat Completions object (`choices[0].message`),
 * a bare string; and, streamed, SSE `data:` events of either kind ending in `[DONE]`.
 * Arguments become JSON text whatever the model sent (object or string). Pure; used by workers-ai-model.ts.
 */
import { isPlainObject, newToolCallId, type StopReason, type TextContent, type ToolCallContent, type Usage } from "../core/index.ts";
import { LlmError } from "./llm-error.ts";
import type { CompletionParts } from "./openai-response.ts";
import { makeUsage } from "./usage.ts";

type PendingCall = { id: string; name: string; arguments: string };

/** A string as it is, nothing as "", anything else as its JSON (model output and call arguments alike). */
const text = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);

/** One tool call in the classic `{name, arguments}` or the OpenAI-like `{id, function: {name, arguments}}` shape. */
function readCall(raw: unknown): PendingCall & { index?: number } {
  const call = isPlainObject(raw) ? raw : {};
  const fn = isPlainObject(call.function) ? call.function : call;
  const pending: PendingCall & { index?: number } = {
    id: typeof call.id === "string" ? call.id : "",
    name: typeof fn.name === "string" ? fn.name : "",
    arguments: text(fn.arguments),
  };
  if (typeof call.index === "number") pending.index = call.index;
  return pending;
}

function readUsage(raw: unknown): Usage | undefined {
  if (!isPlainObject(raw)) return undefined;
  const input = raw.prompt_tokens;
  const output = raw.completion_tokens;
  return typeof input === "number" && typeof output === "number" ? makeUsage(input, output) : undefined;
}

function stopReasonOf(finishReason: unknown, hasToolCalls: boolean): StopReason {
  if (hasToolCalls || finishReason === "tool_calls") return "toolUse";
  return finishReason === "length" ? "length" : "stop";
}

function assemble(body: string, calls: readonly PendingCall[], finishReason: unknown, usage: Usage | undefined): CompletionParts {
  const content: (TextContent | ToolCallContent)[] = [];
  if (body) content.push({ type: "text", text: body });
  for (const call of calls) {
    content.push({ type: "toolCall", id: call.id || newToolCallId(), name: call.name, arguments: call.arguments || "{}" });
  }
  const parts: CompletionParts = { content, stopReason: stopReasonOf(finishReason, calls.length > 0) };
  if (usage) parts.usage = usage;
  return parts;
}

/** A non-streamed result → content, stop reason, usage. */
export function readWorkersAiResult(output: unknown): CompletionParts {
  if (typeof output === "string") return assemble(output, [], "stop", undefined);
  if (!isPlainObject(output)) throw invalid(`expected an object, got ${output === null ? "null" : typeof output}`);
  if (Array.isArray(output.choices)) {
    const choice = isPlainObject(output.choices[0]) ? output.choices[0] : {};
    const message = isPlainObject(choice.message) ? choice.message : {};
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map(readCall) : [];
    return assemble(text(message.content), calls, choice.finish_reason, readUsage(output.usage));
  }
  if (!("response" in output) && !("tool_calls" in output)) {
    throw invalid(`no response or tool_calls in ${JSON.stringify(output).slice(0, 200)}`);
  }
  const calls = Array.isArray(output.tool_calls) ? output.tool_calls.map(readCall) : [];
  return assemble(text(output.response), calls, output.finish_reason, readUsage(output.usage));
}

export type WorkersAiStreamAccumulator = {
  /** Folds in one SSE `data:` payload; returns the text it added ("" when none). */
  add(data: string): string;
  /** True once `[DONE]` or a finish reason arrived: the stream was not cut short. */
  readonly finished: boolean;
  result(): CompletionParts;
};

export function createWorkersAiStreamAccumulator(): WorkersAiStreamAccumulator {
  let body = "";
  let done = false;
  let finishReason: unknown;
  let usage: Usage | undefined;
  const indexed = new Map<number, PendingCall>();
  const whole: PendingCall[] = [];

  // Calls with an index are deltas to merge (id and name once, argument fragments concatenated);
  // calls without one arrive complete, as the classic models send them.
  const addCalls = (raw: unknown) => {
    if (!Array.isArray(raw)) return;
    for (const item of raw) {
      const call = readCall(item);
      if (call.index === undefined) {
        whole.push(call);
        continue;
      }
      const pending = indexed.get(call.index) ?? { id: "", name: "", arguments: "" };
      if (call.id) pending.id = call.id;
      if (call.name && !pending.name) pending.name = call.name;
      pending.arguments += call.arguments;
      indexed.set(call.index, pending);
    }
  };

  return {
    add(data) {
      if (data.trim() === "[DONE]") {
        done = true;
        return "";
      }
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch {
        throw invalid(`a stream event is not JSON: ${data.slice(0, 200)}`);
      }
      if (!isPlainObject(event)) return "";
      let added = "";
      if (typeof event.response === "string") added += event.response;
      addCalls(event.tool_calls);
      if (Array.isArray(event.choices)) {
        const choice = isPlainObject(event.choices[0]) ? event.choices[0] : {};
        const delta = isPlainObject(choice.delta) ? choice.delta : {};
        if (typeof delta.content === "string") added += delta.content;
        addCalls(delta.tool_calls);
        if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason;
      }
      if (typeof event.finish_reason === "string") finishReason = event.finish_reason;
      usage = readUsage(event.usage) ?? usage;
      body += added;
      return added;
    },
    get finished() {
      return done || finishReason !== undefined;
    },
    result() {
      const ordered = [...indexed.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
      return assemble(body, [...ordered, ...whole], finishReason, usage);
    },
  };
}

function invalid(detail: string): LlmError {
  return new LlmError(`Workers AI answered in an unexpected shape: ${detail}`, { kind: "invalid_response", retryable: false });
}
