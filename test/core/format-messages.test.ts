/**
 * formatMsgForLLM: history and tools → OpenAI Chat Completions messages and tool list.
 */
import { describe, expect, it } from "vitest";
import { formatMsgForLLM } from "../../src/core/format-messages.ts";
import type { AgentContext, AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/core/types.ts";
import { makeTool, toolMap, userMessage } from "./support.ts";

const context = (messages: AgentMessage[], systemPrompt = "Be brief."): AgentContext => ({
  systemPrompt,
  messages,
  tools: toolMap(),
});

const assistantCalling: AssistantMessage = {
  role: "assistant",
  content: [
    { type: "text", text: "Let me check." },
    { type: "toolCall", id: "c1", name: "getWeather", arguments: { city: "Oslo" } },
    { type: "toolCall", id: "c2", name: "getTime", arguments: '{"zone":"CET"}' },
  ],
  stopReason: "toolUse",
  timestamp: 1,
};

const result = (toolCallId: string, text: string, isError = false): ToolResultMessage => ({
  role: "toolResult",
  toolCallId,
  toolName: "getWeather",
  content: [{ type: "text", text }],
  details: {},
  isError,
  timestamp: 1,
});

describe("formatMsgForLLM", () => {
  it("puts the system prompt first", () => {
    const { messages } = formatMsgForLLM(context([userMessage("hi")]));
    expect(messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(messages[1]?.role).toBe("user");
  });

  it("leaves the system message out when there is no system prompt", () => {
    const { messages } = formatMsgForLLM(context([userMessage("hi")], ""));
    expect(messages.map((m) => m.role)).toEqual(["user"]);
  });

  it("sends user text as a plain string", () => {
    const { messages } = formatMsgForLLM(context([userMessage("What is the weather?")]));
    expect(messages[1]).toEqual({ role: "user", content: "What is the weather?" });
  });

  it("sends an assistant's tool calls with JSON-text arguments", () => {
    const { messages } = formatMsgForLLM(context([assistantCalling]));
    expect(messages[1]).toEqual({
      role: "assistant",
      content: "Let me check.",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "getWeather", arguments: '{"city":"Oslo"}' } },
        { id: "c2", type: "function", function: { name: "getTime", arguments: '{"zone":"CET"}' } },
      ],
    });
  });

  it("sends tool results as tool messages carrying tool_call_id", () => {
    const { messages } = formatMsgForLLM(context([assistantCalling, result("c1", "Sunny, 21°C"), result("c2", "bad zone", true)]));
    expect(messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "Sunny, 21°C" },
      { role: "tool", tool_call_id: "c2", content: "bad zone" },
    ]);
  });

  it("keeps history order on the wire", () => {
    const final: AssistantMessage = { role: "assistant", content: [{ type: "text", text: "Sunny." }], stopReason: "stop", timestamp: 1 };
    const { messages } = formatMsgForLLM(
      context([userMessage("weather?"), assistantCalling, result("c1", "Sunny"), result("c2", "noon"), final]),
    );
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
  });

  it("lists tools as functions with name, description and JSON Schema parameters", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const weather = makeTool("getWeather", { description: "Current weather for a city", inputSchema: schema });
    const { tools } = formatMsgForLLM({ systemPrompt: "", messages: [], tools: toolMap(weather, makeTool("getTime")) });
    expect(tools).toEqual([
      { type: "function", function: { name: "getWeather", description: "Current weather for a city", parameters: schema } },
      {
        type: "function",
        function: { name: "getTime", description: "The getTime test tool", parameters: { type: "object", properties: {} } },
      },
    ]);
  });
});
