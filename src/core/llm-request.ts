/**
 * What an llmCall receives: OpenAI Chat Completions messages and tools, the wire shape every adapter
 * speaks. Declared by hand so the core stays free of the `openai` package; made by formatMsgForLLM
 * (format-messages.ts), read by the adapters in src/llm. Types only, so any core module may import them.
 */
export type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

export type ChatToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export type ChatTool = {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
};

/** What llmCall receives: the spec's formatted `Dict("messages" => ...)`, plus the tool list. */
export type LlmRequest = { messages: ChatMessage[]; tools: ChatTool[] };
