/**
 * formatMsgForLLM's default hook: an AgentContext → OpenAI Chat Completions request body parts.
 * Wire types are declared here by hand so the core stays free of the `openai` package.
 * Tool calls go out with JSON-text arguments; results go out as `tool` messages with `tool_call_id`.
 * History is append-only and a stored message is never changed, so each message (and tool) is formatted
 * once and the same wire object is returned at every later step; for a window of the history marked by the
 * context policy, the wire list itself is kept and extended, so a step's cost does not grow with history.
 * Kept because measured: with the step caches of format-messages, context-budget, history-windows and
 * request-json removed, the step took 1.45× as long at 1,000 messages (interleaved bench:ab, non-streaming).
 */
import { historyOf, markRead, onlyAppendedSince, type ReadProgress } from "./history-windows.ts";
import { describeContentBlock } from "./content-text.ts";
import type { ChatContentPart, ChatMessage, ChatTool, ChatToolCall, LlmRequest } from "./llm-request.ts";
import type { AgentContext, AgentMessage, AgentTool, ToolResultContent, UserContent } from "./types.ts";

// Keyed by the history's own objects; `null` remembers "not sent". Entries go when the messages do.
const formattedMessages = new WeakMap<AgentMessage, ChatMessage | null>();
const formattedTools = new WeakMap<AgentTool, ChatTool>();

/**
 * The wire messages of a window of one history, kept per history array: a step formats (or looks up) only
 * the messages appended since the last step, while the window starts at the same message. The session's
 * system message is kept with it, one object while the prompt is the same, so its JSON is cached too and
 * the request's message list keeps extending the same first object (request-json.ts).
 */
type WireWindow = ReadProgress & { wire: ChatMessage[]; system?: SystemMessage };
type SystemMessage = { role: "system"; content: string };
const wireByHistory = new WeakMap<readonly AgentMessage[], WireWindow>();

export function formatMsgForLLM(context: AgentContext): LlmRequest {
  const history = historyOf(context.messages);
  const window = history ? wireWindowOf(context.messages, history) : undefined;
  const wire = window ? window.wire : appendWire([], context.messages, 0);
  // A fresh array every step: a caller may keep an earlier request.
  const messages: ChatMessage[] = context.systemPrompt ? [systemMessageOf(context.systemPrompt, window), ...wire] : [...wire];
  const tools: ChatTool[] = [];
  for (const tool of context.tools.values()) {
    let formatted = formattedTools.get(tool);
    if (!formatted) {
      formatted = formatTool(tool);
      formattedTools.set(tool, formatted);
    }
    tools.push(formatted);
  }
  return { messages, tools };
}

/** The history's wire window, extended with the messages appended since the last step (rebuilt otherwise). */
function wireWindowOf(messages: readonly AgentMessage[], history: readonly AgentMessage[]): WireWindow {
  let window = wireByHistory.get(history);
  if (!window || !onlyAppendedSince(messages, window)) {
    window = { counted: 0, first: undefined, last: undefined, wire: [], ...(window?.system ? { system: window.system } : {}) };
    wireByHistory.set(history, window);
  }
  appendWire(window.wire, messages, window.counted);
  markRead(window, messages);
  return window;
}

function systemMessageOf(prompt: string, window: WireWindow | undefined): SystemMessage {
  if (!window) return { role: "system", content: prompt };
  if (window.system?.content !== prompt) window.system = { role: "system", content: prompt };
  return window.system;
}

function appendWire(wire: ChatMessage[], messages: readonly AgentMessage[], from: number): ChatMessage[] {
  for (let i = from; i < messages.length; i++) {
    const message = messages[i]!;
    let formatted = formattedMessages.get(message);
    if (formatted === undefined) {
      formatted = formatMessage(message) ?? null;
      formattedMessages.set(message, formatted);
    }
    if (formatted) wire.push(formatted);
  }
  return wire;
}

export function formatTool(tool: AgentTool): ChatTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}

/** One history message on the wire; undefined for messages the model must not see (empty failed turns). */
export function formatMessage(message: AgentMessage): ChatMessage | undefined {
  switch (message.role) {
    case "user":
      return { role: "user", content: formatUserContent(message.content) };
    case "assistant": {
      const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      const toolCalls: ChatToolCall[] = message.content.flatMap((b) =>
        b.type === "toolCall"
          ? [{ id: b.id, type: "function" as const, function: { name: b.name, arguments: typeof b.arguments === "string" ? b.arguments : JSON.stringify(b.arguments) } }]
          : [],
      );
      if (!text && toolCalls.length === 0) return undefined;
      return toolCalls.length > 0 ? { role: "assistant", content: text || null, tool_calls: toolCalls } : { role: "assistant", content: text };
    }
    case "toolResult":
      return { role: "tool", tool_call_id: message.toolCallId, content: toolResultText(message.content, message.isError) };
    default: {
      const never: never = message;
      throw new Error(`Unknown message role: ${JSON.stringify(never)}`);
    }
  }
}

function formatUserContent(content: UserContent[]): string | ChatContentPart[] {
  if (content.every((b) => b.type === "text")) return content.map((b) => b.text).join("\n");
  return content.map((b) =>
    b.type === "text" ? { type: "text", text: b.text } : { type: "image_url", image_url: { url: `data:${b.mimeType};base64,${b.data}` } },
  );
}

// Chat Completions tool messages carry text only; other blocks are described so the model knows they exist.
function toolResultText(content: ToolResultContent[], isError: boolean): string {
  const text = content.map(describeContentBlock).join("\n");
  return isError && !text ? "Error" : text;
}
