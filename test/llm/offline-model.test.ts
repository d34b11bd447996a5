import { describe, expect, it } from "vitest";
import type { ChatMessage, LlmRequest } from "../../src/core/llm-request.ts";
import { summaryPrompt, transcript } from "../../src/core/context-compaction.ts";
import type { AgentMessage } from "../../src/core/types.ts";
import { createOfflineLlmCall } from "../../src/llm/offline-model.ts";
import { bundledTools, chatTool, deltaRecorder, getTimeTool, listToolsTool, userRequest } from "./fixtures.ts";

const offline = createOfflineLlmCall();
const toolCallsOf = async (text: string, tools = bundledTools) => (await offline(userRequest(text, tools), {})).content;

describe("the offline model picking tools", () => {
  it("calls getWeather with the city after 'in'", async () => {
    expect(await toolCallsOf("What's the weather in Paris?")).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "getWeather", arguments: '{"city":"Paris"}' },
    ]);
  });

  it("gives each of two asked-for tools the place from its own part of the message", async () => {
    expect(await toolCallsOf("time in New York and weather in Tokyo")).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "getTime", arguments: '{"city":"New York"}' },
      { type: "toolCall", id: "offline_call_2", name: "getWeather", arguments: '{"city":"Tokyo"}' },
    ]);
  });

  it("keeps the values written for one tool away from the next tool", async () => {
    expect(await toolCallsOf("call getTime timezone=Asia/Tokyo and getWeather city=Oslo")).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "getTime", arguments: '{"timezone":"Asia/Tokyo"}' },
      { type: "toolCall", id: "offline_call_2", name: "getWeather", arguments: '{"city":"Oslo"}' },
    ]);
  });

  it("reads on past its own part of the message when that part names no place", async () => {
    expect(await toolCallsOf("What's the time and the weather in Paris?")).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "getTime", arguments: '{"city":"Paris"}' },
      { type: "toolCall", id: "offline_call_2", name: "getWeather", arguments: '{"city":"Paris"}' },
    ]);
  });

  it("fills a timezone property with an IANA zone from the message, not a city", async () => {
    expect(await toolCallsOf("What time is it in Europe/Berlin?")).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "getTime", arguments: '{"timezone":"Europe/Berlin"}' },
    ]);
  });

  it("calls a tool the message names explicitly", async () => {
    expect(await toolCallsOf("please use listTools")).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "listTools", arguments: "{}" },
    ]);
  });

  it("calls listTools when asked what tools it has", async () => {
    expect(await toolCallsOf("What tools do you have?")).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "listTools", arguments: "{}" },
    ]);
  });

  it("reads an enum value named in the message", async () => {
    expect(await toolCallsOf("weather in Oslo in fahrenheit")).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "getWeather", arguments: '{"city":"Oslo","units":"fahrenheit"}' },
    ]);
  });

  it("fills same-named properties from key=value and key: value pairs, typed by the schema", async () => {
    const add = chatTool("addNumbers", { a: { type: "number" }, b: { type: "number" }, label: { type: "string" } }, ["a", "b"]);
    expect(await toolCallsOf('call addNumbers a=2 b: 3.5 label="my sum"', [add])).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "addNumbers", arguments: '{"a":2,"b":3.5,"label":"my sum"}' },
    ]);
  });

  it("reads a quoted value as one argument: the words inside it call no other tool", async () => {
    const researcher = chatTool("researcher", { task: { type: "string" } }, ["task"]);
    expect(await toolCallsOf('researcher task="what time is it in Tokyo"', [...bundledTools, researcher])).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "researcher", arguments: '{"task":"what time is it in Tokyo"}' },
    ]);
  });

  it("leaves out a required property it cannot fill instead of inventing a value", async () => {
    expect(await toolCallsOf("What's the weather?")).toEqual([
      { type: "toolCall", id: "offline_call_1", name: "getWeather", arguments: "{}" },
    ]);
  });

  it("does not call a tool that the request does not offer", async () => {
    const response = await offline(userRequest("What's the weather in Paris?", [getTimeTool, listToolsTool]), {});
    expect(response.stopReason).toBe("stop");
    expect(response.content).toHaveLength(1);
    expect(response.content[0]).toMatchObject({ type: "text" });
  });

  it("numbers its call ids after the calls already in the conversation", async () => {
    const earlier: ChatMessage[] = [
      { role: "user", content: "use listTools" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "offline_call_1", type: "function", function: { name: "listTools", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "offline_call_1", content: "getTime, getWeather, listTools" },
      { role: "assistant", content: "Here is what I found." },
    ];
    const response = await offline(userRequest("What time is it?", bundledTools, earlier), {});
    expect(response.content).toEqual([{ type: "toolCall", id: "offline_call_2", name: "getTime", arguments: "{}" }]);
  });

  it("answers the same request the same way every time", async () => {
    const request = userRequest("time in New York and weather in Tokyo");
    const first = await offline(request, {});
    const second = await offline(request, {});
    expect(second.content).toEqual(first.content);
    expect(second.usage).toEqual(first.usage);
  });
});

describe("the offline model answering in text", () => {
  const afterTools: ChatMessage[] = [
    { role: "user", content: "time in Berlin and weather in Tokyo" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "offline_call_1", type: "function", function: { name: "getTime", arguments: '{"city":"Berlin"}' } },
        { id: "offline_call_2", type: "function", function: { name: "getWeather", arguments: '{"city":"Tokyo"}' } },
      ],
    },
    { role: "tool", tool_call_id: "offline_call_1", content: "It is 14:03 in Berlin." },
    { role: "tool", tool_call_id: "offline_call_2", content: "Tokyo: 18 °C,\nclear sky" },
  ];

  it("summarizes each tool result after the tools ran", async () => {
    const response = await offline({ messages: afterTools, tools: bundledTools }, {});
    expect(response.content).toEqual([
      { type: "text", text: "Here is what I found:\n- getTime: It is 14:03 in Berlin.\n- getWeather: Tokyo: 18 °C, clear sky" },
    ]);
    expect(response.stopReason).toBe("stop");
  });

  it("streams its text word by word, the deltas adding up to the answer", async () => {
    const { deltas, onTextDelta } = deltaRecorder();
    const response = await offline({ messages: afterTools, tools: bundledTools }, { onTextDelta });
    expect(deltas.length).toBeGreaterThan(5);
    expect(response.content).toEqual([{ type: "text", text: deltas.join("") }]);
  });

  it("says it is the offline demo model and names its tools when no tool fits", async () => {
    const [block] = await toolCallsOf("Tell me a joke");
    expect(block).toMatchObject({ type: "text" });
    const text = (block as { text: string }).text;
    expect(text).toContain("offline demo model");
    expect(text).toContain("getTime, getWeather, listTools");
  });

  it("reports itself and an estimated usage", async () => {
    const response = await offline(userRequest("Tell me a joke"), {});
    expect(response).toMatchObject({ api: "offline", provider: "offline", model: "offline-demo" });
    expect(response.usage?.inputTokens).toBeGreaterThan(0);
    expect(response.usage?.totalTokens).toBe((response.usage?.inputTokens ?? 0) + (response.usage?.outputTokens ?? 0));
  });

  it("throws when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(offline(userRequest("hi"), { signal: controller.signal })).rejects.toMatchObject({ name: "LlmError", kind: "aborted" });
  });

  it("stops streaming when the signal aborts between words", async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = offline(userRequest("Tell me a joke"), {
      signal: controller.signal,
      onTextDelta: (t) => (deltas.push(t), controller.abort()),
    });
    await expect(call).rejects.toMatchObject({ kind: "aborted" });
    expect(deltas).toHaveLength(1);
  });
});

describe("the offline model summarising (compaction)", () => {
  const summaryRequest = (transcriptText: string): LlmRequest => ({
    messages: [
      { role: "system", content: summaryPrompt(200) },
      { role: "user", content: transcriptText },
    ],
    tools: [],
  });
  const textOfReply = async (request: LlmRequest) => ((await offline(request, {})).content[0] as { text: string }).text;

  it("answers a summary call with the user's requests and the tools used, the same every time", async () => {
    const messages: AgentMessage[] = [
      { role: "user", content: [{ type: "text", text: "What's the weather in Paris?" }], timestamp: 1 },
      {
        role: "assistant",
        content: [{ type: "toolCall", id: "c1", name: "getWeather", arguments: { city: "Paris" } }],
        stopReason: "toolUse",
        timestamp: 1,
      },
      {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "getWeather",
        content: [{ type: "text", text: "Sunny, 21°C" }],
        details: {},
        isError: false,
        timestamp: 1,
      },
      { role: "assistant", content: [{ type: "text", text: "Sunny in Paris." }], stopReason: "stop", timestamp: 1 },
    ];
    const request = summaryRequest(transcript(undefined, messages));
    const text = await textOfReply(request);
    expect(text).toBe(
      "Summary of the earlier conversation (offline model):\n- User: What's the weather in Paris?\n- Tools used: getWeather ×1",
    );
    expect(await textOfReply(request)).toBe(text);
  });

  it("rolls the previous summary in", async () => {
    const previous = {
      text: "Summary of the earlier conversation (offline model):\n- User: first\n- Tools used: getTime ×2",
      summarizedMessages: 6,
    };
    const messages: AgentMessage[] = [
      { role: "user", content: [{ type: "text", text: "second" }], timestamp: 1 },
      { role: "assistant", content: [{ type: "toolCall", id: "c9", name: "getTime", arguments: {} }], stopReason: "toolUse", timestamp: 1 },
      {
        role: "toolResult",
        toolCallId: "c9",
        toolName: "getTime",
        content: [{ type: "text", text: "12:00" }],
        details: {},
        isError: false,
        timestamp: 1,
      },
    ];
    expect(await textOfReply(summaryRequest(transcript(previous, messages)))).toBe(
      "Summary of the earlier conversation (offline model):\n- User: first\n- User: second\n- Tools used: getTime ×3",
    );
  });
});
