/**
 * Tool-call extraction (the spec's extract_tool_calls). Reads a model response and returns the normalized
 * assistant message (every tool call as a `toolCall` block with an id) plus the calls to run. Accepts the real OpenAI shape
 * (`{id, type:"function", function:{name, arguments:"<json>"}}`), both of the spec's shapes (a
 * `tool_calls` block and single `tool_call` blocks, flat or nested) and our own `toolCall` blocks.
 * Never throws: an unreadable entry becomes a call marked `invalid`, which the pipeline answers with an error.
 * Ids are ours to trust: a missing id, one repeated inside the response, or one `isTaken` reports (used
 * earlier in the session, e.g. `call_0` every turn) is replaced by a fresh unique id before storing.
 */
import { isPlainObject } from "./plain-object.ts";
import type { AgentToolCall, AssistantContent, AssistantMessage, LlmResponse, ToolArguments } from "./types.ts";

export type ExtractedToolCalls = {
  message: AssistantMessage;
  toolCalls: AgentToolCall[];
};

export function newToolCallId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/** Reads one tool-call entry in any accepted shape. */
export function readToolCall(entry: unknown): AgentToolCall {
  if (!isPlainObject(entry)) {
    return {
      type: "function",
      id: newToolCallId(),
      name: "unreadable_tool_call",
      arguments: {},
      invalid: `Malformed tool call: expected an object, got ${JSON.stringify(entry) ?? String(entry)}`,
    };
  }
  const fn = isPlainObject(entry.function) ? entry.function : entry;
  const id = typeof entry.id === "string" && entry.id !== "" ? entry.id : newToolCallId();
  const name = fn.name;
  const args = fn.arguments ?? fn.args ?? fn.input;
  if (typeof name !== "string" || name === "") {
    return { type: "function", id, name: "unnamed_tool_call", arguments: {}, invalid: "Malformed tool call: the tool name is missing" };
  }
  if (args !== undefined && typeof args !== "string" && !isPlainObject(args)) {
    return { type: "function", id, name, arguments: {}, invalid: `Arguments for tool "${name}" must be a JSON object` };
  }
  return { type: "function", id, name, arguments: (args as ToolArguments | string | undefined) ?? {} };
}

/**
 * Normalizes the content of a response. `response` may carry spec-shaped blocks or a top-level
 * OpenAI `tool_calls` array; the returned message holds only text, thinking and toolCall blocks.
 */
export function extractToolCalls(
  response: LlmResponse | AssistantMessage,
  now: number = Date.now(),
  isTaken: (id: string) => boolean = () => false,
): ExtractedToolCalls {
  const content: AssistantContent[] = [];
  const toolCalls: AgentToolCall[] = [];
  const used = new Set<string>();
  const take = (entry: unknown) => {
    const call = readToolCall(entry);
    if (used.has(call.id) || isTaken(call.id)) call.id = newToolCallId();
    used.add(call.id);
    toolCalls.push(call);
    content.push({
      type: "toolCall",
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      ...(call.invalid ? { invalid: call.invalid } : {}),
    });
  };
  const blocks: unknown[] = Array.isArray(response.content) ? response.content : [];
  for (const block of blocks) {
    if (typeof block === "string") {
      if (block) content.push({ type: "text", text: block });
      continue;
    }
    if (!isPlainObject(block)) continue;
    switch (block.type) {
      case "text":
        if (typeof block.text === "string") content.push({ type: "text", text: block.text });
        break;
      case "thinking":
        if (typeof block.thinking === "string") content.push({ type: "thinking", thinking: block.thinking });
        break;
      case "toolCall":
      case "tool_call":
        take(block);
        break;
      case "tool_calls":
        if (Array.isArray(block.tool_calls)) block.tool_calls.forEach(take);
        else take(block.tool_calls);
        break;
      default:
        if (typeof block.text === "string") content.push({ type: "text", text: block.text });
    }
  }
  const topLevel = (response as { tool_calls?: unknown }).tool_calls;
  if (Array.isArray(topLevel)) topLevel.forEach(take);

  const { tool_calls: _ignored, ...rest } = response as LlmResponse;
  const message: AssistantMessage = {
    ...rest,
    role: "assistant",
    content,
    stopReason: rest.stopReason ?? "stop",
    timestamp: rest.timestamp ?? now,
  };
  if (toolCalls.length > 0 && message.stopReason === "stop") message.stopReason = "toolUse";
  return { message, toolCalls };
}

/** The tool calls an already-normalized assistant message carries (used when resuming a run). */
export function toolCallsOf(message: AssistantMessage): AgentToolCall[] {
  return message.content
    .filter((b): b is Extract<AssistantContent, { type: "toolCall" }> => b.type === "toolCall")
    .map((b) => ({ type: "function", id: b.id, name: b.name, arguments: b.arguments, ...(b.invalid ? { invalid: b.invalid } : {}) }));
}
