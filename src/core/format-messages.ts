/**
 * formatMsgForLLM's default hook: an AgentContext → OpenAI Chat Completions request body parts.
 * Wire types are declared here by hand so the core stays free of the `openai` package.
 * Tool calls go out with JSON-text arguments; results go out as `tool` messages with `tool_call_id`.
 * A stored message never changes, so its wire form is made once and kept with the message (kept-with.ts):
 * every step hands the adapter the same wire objects, whose JSON text the adapter keeps with them in turn.
 */
import { keptWith } from "./kept-with.ts";
import type { ChatContentPart, ChatMessage, ChatTool, ChatToolCall, LlmRequest } from "./llm-request.ts";
import type { AgentContext, AgentMessage, AgentTool, ToolResultContent, UserContent } from "./types.ts";

/** The key a message's wire form (or null: not sent) and a tool's are kept under. */
const WIRE_FORM = Symbol("wireForm");

export function formatMsgForLLM(context: AgentContext): LlmRequest {
  const messages: ChatMessage[] = context.systemPrompt ? [{ role: "system", content: context.systemPrompt }] : [];
  for (const message of context.messages) {
    const wire = keptWith(message, WIRE_FORM, () => formatMessage(message) ?? null);
    if (wire) messages.push(wire);
  }
  const tools: ChatTool[] = [];
  for (const tool of context.tools.values()) tools.push(keptWith(tool, WIRE_FORM, () => formatTool(tool)));
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

// Chat Completions tool messages carry text only; images are named so the model knows they exist.
function toolResultText(content: ToolResultContent[], isError: boolean): string {
  const text = content.map((b) => (b.type === "text" ? b.text : `[image: ${b.mimeType}]`)).join("\n");
  return isError && !text ? "Error" : text;
}
