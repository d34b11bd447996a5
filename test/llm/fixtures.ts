/**
 * Request builders shared by the LLM adapter tests: chat tools shaped like the bundled ones
 * (getTime, getWeather, listTools) and one-message requests.
 */
import type { ChatMessage, ChatTool, LlmRequest } from "../../src/core/format-messages.ts";

export function chatTool(name: string, properties: Record<string, unknown> = {}, required: string[] = []): ChatTool {
  return { type: "function", function: { name, description: `The ${name} tool`, parameters: { type: "object", properties, required } } };
}

export const getTimeTool = chatTool("getTime", { timezone: { type: "string", description: "IANA zone" }, city: { type: "string" } });
export const getWeatherTool = chatTool("getWeather", { city: { type: "string" }, units: { type: "string", enum: ["celsius", "fahrenheit"] } }, ["city"]);
export const listToolsTool = chatTool("listTools");
export const bundledTools: ChatTool[] = [getTimeTool, getWeatherTool, listToolsTool];

export function userRequest(text: string, tools: ChatTool[] = bundledTools, earlier: ChatMessage[] = []): LlmRequest {
  return { messages: [{ role: "system", content: "You are helpful." }, ...earlier, { role: "user", content: text }], tools };
}

/** Collects what an LlmCall streams. */
export function deltaRecorder(): { deltas: string[]; onTextDelta: (text: string) => void } {
  const deltas: string[] = [];
  return { deltas, onTextDelta: (text) => void deltas.push(text) };
}
