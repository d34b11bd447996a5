/**
 * formatMsgForLLM's default hook: an AgentContext → OpenAI Chat Completions request body parts.
 * Wire types are declared here by hand so the core stays free of the `openai` package.
 * Tool calls go out with JSON-text arguments; results go out as `tool` messages with `tool_call_id`.
 * A stored message never changes, so its wire object is made once and kept with it (a WeakMap entry per
 * message, gone with the message): a step formats only the messages it added, and a run's request encoder
 * extends the previous request's bytes while the list starts with the same objects (src/llm/request-json.ts).
 */
import { describeContentBlock } from "./content-text.ts";
import type { ChatContentPart, ChatMessage, ChatTool, ChatToolCall, LlmRequest } from "./llm-request.ts";
import type { AgentContext, AgentMessage, AgentTool, ToolResultContent, UserContent } from "./types.ts";

// `null` remembers "not sent" (an empty failed turn).
const formattedMessages = new WeakMap<AgentMessage, ChatMessage | null>();
const formattedTools = new WeakMap<AgentTool, ChatTool>();
/** The same prompt gives the same system message object, so a request still extends the previous one. */
const systemMessages = new Map<string, ChatMessage>();
const MAX_SYSTEM_MESSAGES = 64;

function systemMessageOf(prompt: string): ChatMessage {
  let message = systemMessages.get(prompt);
  if (!message) {
    if (systemMessages.size >= MAX_SYSTEM_MESSAGES) systemMessages.clear();
    message = { role: "system", content: prompt };
    systemMessages.set(prompt, message);
  }
  return message;
}

export function formatMsgForLLM(context: AgentContext): LlmRequest {
  const messages: ChatMessage[] = context.systemPrompt ? [systemMessageOf(context.systemPrompt)] : [];
  for (const message of context.messages) {
    let formatted = formattedMessages.get(message);
    if (formatted === undefined) {
      formatted = formatMessage(message) ?? null;
      formattedMessages.set(message, formatted);
    }
    if (formatted) messages.push(formatted);
  }
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
          ? [
              {
                id: b.id,
                type: "function" as const,
                function: { name: b.name, arguments: typeof b.arguments === "string" ? b.arguments : JSON.stringify(b.arguments) },
              },
            ]
          : [],
      );
      if (!text && toolCalls.length === 0) return undefined;
      return toolCalls.length > 0
        ? { role: "assistant", content: text || null, tool_calls: toolCalls }
        : { role: "assistant", content: text };
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
