import { describe, expect, it } from "vitest";
import type { ToolCallContent } from "../../src/core/types.ts";
import { createOfflineLlmCall } from "../../src/llm/offline-model.ts";
import { bundledTools, chatTool, userRequest } from "./fixtures.ts";

const offline = createOfflineLlmCall();
const runCode = chatTool("runCode", { code: { type: "string" } }, ["code"]);

describe("the offline model in code mode", () => {
  it("answers a request for several calls with one runCode program that makes them together", async () => {
    const content = (await offline(userRequest("What time is it in Tokyo and Paris?", [...bundledTools, runCode]), {})).content;
    expect(content).toHaveLength(1);
    const call = content[0] as ToolCallContent;
    expect(call.name).toBe("runCode");
    const { code } = JSON.parse(call.arguments as string) as { code: string };
    expect(code).toContain('tools.getTime({"city":"Tokyo"})');
    expect(code).toContain('tools.getTime({"city":"Paris"})');
    expect(code).toContain("Promise.all");
  });

  it("reads the program's returned entries back into its summary", async () => {
    const returned = { "getTime Tokyo": "Tokyo: 09:00", "getTime Paris": "Paris: 02:00" };
    const request = userRequest("What time is it in Tokyo and Paris?", [...bundledTools, runCode], []);
    request.messages.push(
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "runCode", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: JSON.stringify({ returned, logs: [] }) },
    );
    const [text] = (await offline(request, {})).content as { text: string }[];
    expect(text!.text).toBe("Here is what I found:\n- getTime Tokyo: Tokyo: 09:00\n- getTime Paris: Paris: 02:00");
  });

  it("calls the tool directly when one call is enough, or when runCode is not offered", async () => {
    const one = (await offline(userRequest("What time is it in Tokyo?", [...bundledTools, runCode]), {})).content;
    expect(one).toMatchObject([{ name: "getTime", arguments: '{"city":"Tokyo"}' }]);
    const plain = (await offline(userRequest("What time is it in Tokyo and Paris?", bundledTools), {})).content;
    expect(plain.map((c) => (c as ToolCallContent).name)).toEqual(["getTime"]);
  });
});
