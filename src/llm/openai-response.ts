/**
 * Turns Chat Completions output (one ChatCompletion, or a stream of chunks) into the parts of an LlmResponse.
 * Streamed tool-call deltas are accumulated by `index` and `id`: a fragment with a new id starts a new
 * call even at an index already used (some servers send every call at index 0), fragments without an id
 * continue the latest call at their index, and arguments stay the JSON text the model sent. Text comes before tool calls in `content`.
 * Used by openai-chat-model.ts; pure, so the accumulation is testable without a server.
 */
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import { newToolCallId, type StopReason, type TextContent, type ToolCallContent, type Usage } from "../core/index.ts";
import { makeUsage } from "./usage.ts";

export type CompletionParts = {
  content: (TextContent | ToolCallContent)[];
  stopReason: StopReason;
  usage?: Usage;
  model?: string;
};

type FinishReason = ChatCompletion.Choice["finish_reason"] | ChatCompletionChunk.Choice["finish_reason"];
type PendingToolCall = { id: string; name: string; arguments: string };

export function toStopReason(finishReason: FinishReason | undefined, hasToolCalls: boolean): StopReason {
  // Some OpenAI-compatible servers answer "stop" together with tool calls: the calls decide.
  if (hasToolCalls || finishReason === "tool_calls" || finishReason === "function_call") return "toolUse";
  return finishReason === "length" ? "length" : "stop";
}

function buildContent(text: string, calls: readonly PendingToolCall[]): (TextContent | ToolCallContent)[] {
  const content: (TextContent | ToolCallContent)[] = [];
  if (text) content.push({ type: "text", text });
  for (const call of calls) content.push({ type: "toolCall", id: call.id || newToolCallId(), name: call.name, arguments: call.arguments });
  return content;
}

function usageOf(usage: ChatCompletion["usage"] | null | undefined): Usage | undefined {
  return usage ? makeUsage(usage.prompt_tokens, usage.completion_tokens) : undefined;
}

/** A non-streamed completion → content, stop reason, usage. */
export function readCompletion(completion: ChatCompletion): CompletionParts {
  const choice = completion.choices[0];
  const message = choice?.message;
  const calls = (message?.tool_calls ?? []).flatMap((call) =>
    call.type === "function" ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
  );
  const text = (message?.content ?? "") + (message?.refusal ?? "");
  const parts: CompletionParts = { content: buildContent(text, calls), stopReason: toStopReason(choice?.finish_reason, calls.length > 0) };
  const usage = usageOf(completion.usage);
  if (usage) parts.usage = usage;
  if (completion.model) parts.model = completion.model;
  return parts;
}

export type ChunkAccumulator = {
  /** Folds one chunk in; returns the text it added (for onTextDelta), "" when none. */
  add(chunk: ChatCompletionChunk): string;
  /** True once a choice reported its finish_reason: the stream was not cut short. */
  readonly finished: boolean;
  result(): CompletionParts;
};

export function createChunkAccumulator(): ChunkAccumulator {
  let text = "";
  let finishReason: FinishReason | undefined;
  let usage: Usage | undefined;
  let model: string | undefined;
  // Every call in arrival order, and the call each index's id-less fragments continue.
  const calls: { index: number; call: PendingToolCall }[] = [];
  const latest = new Map<number, PendingToolCall>();

  return {
    add(chunk) {
      if (chunk.model) model = chunk.model;
      if (chunk.usage) usage = usageOf(chunk.usage);
      let added = "";
      for (const choice of chunk.choices ?? []) {
        if (choice.index !== 0) continue;
        const delta = choice.delta;
        added += (delta?.content ?? "") + (delta?.refusal ?? "");
        for (const part of delta?.tool_calls ?? []) {
          let call = latest.get(part.index);
          if (!call || (part.id && call.id && part.id !== call.id)) {
            call = { id: "", name: "", arguments: "" };
            calls.push({ index: part.index, call });
            latest.set(part.index, call);
          }
          if (part.id) call.id = part.id;
          // The name arrives once; some servers repeat it on every fragment, which must not double it.
          if (part.function?.name && !call.name) call.name = part.function.name;
          if (part.function?.arguments) call.arguments += part.function.arguments;
        }
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      text += added;
      return added;
    },
    get finished() {
      return finishReason !== undefined;
    },
    result() {
      // Array sort is stable: calls sharing an index keep their arrival order.
      const ordered = [...calls].sort((a, b) => a.index - b.index).map(({ call }) => call);
      const parts: CompletionParts = { content: buildContent(text, ordered), stopReason: toStopReason(finishReason, ordered.length > 0) };
      if (usage) parts.usage = usage;
      if (model) parts.model = model;
      return parts;
    },
  };
}
