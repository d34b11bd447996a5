/**
 * Shared by the LLM adapter tests: chat tools shaped like the bundled ones (getTime, getWeather,
 * listTools), one-message requests, a delta recorder, and the mock OpenAI server each file starts.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { LlmCall } from "../../src/core/agent-loop.ts";
import type { ChatMessage, ChatTool, LlmRequest } from "../../src/core/llm-request.ts";
import { createOpenAiLlmCall, type OpenAiLlmOptions } from "../../src/llm/openai-chat-model.ts";
import { startMockOpenAi, type MockOpenAiServer } from "../../support/mock-openai-server.ts";

export function chatTool(name: string, properties: Record<string, unknown> = {}, required: string[] = []): ChatTool {
  return { type: "function", function: { name, description: `The ${name} tool`, parameters: { type: "object", properties, required } } };
}

export const getTimeTool = chatTool("getTime", { timezone: { type: "string", description: "IANA zone" }, city: { type: "string" } });
export const getWeatherTool = chatTool(
  "getWeather",
  { city: { type: "string" }, units: { type: "string", enum: ["celsius", "fahrenheit"] } },
  ["city"],
);
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

/**
 * A mock OpenAI server for the calling test file: started before its tests, stopped after them, its
 * script and recorded requests reset before each test. Read `.server` inside tests (it exists from then);
 * `llm()` is the OpenAI adapter pointed at it, with a 1 ms backoff so only a server-requested wait is slow.
 */
export function useMockOpenAi(): { readonly server: MockOpenAiServer; llm(options?: Partial<OpenAiLlmOptions>): LlmCall } {
  let started: MockOpenAiServer | undefined;
  beforeAll(async () => {
    started = await startMockOpenAi();
  });
  afterAll(() => started?.close());
  beforeEach(() => started?.reset());
  const fixture = {
    get server(): MockOpenAiServer {
      if (!started) throw new Error("the mock OpenAI server is read before beforeAll started it");
      return started;
    },
    llm: (options: Partial<OpenAiLlmOptions> = {}): LlmCall =>
      createOpenAiLlmCall({ apiKey: "test-key", baseURL: fixture.server.url, model: "test-model", initialRetryDelayMs: 1, ...options }),
  };
  return fixture;
}
