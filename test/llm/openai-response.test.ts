import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { createChunkAccumulator } from "../../src/llm/openai-response.ts";

type ToolDelta = NonNullable<ChatCompletionChunk.Choice.Delta["tool_calls"]>[number];

function chunk(delta: ChatCompletionChunk.Choice.Delta, finish: ChatCompletionChunk.Choice["finish_reason"] = null): ChatCompletionChunk {
  return { id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] };
}
const toolDelta = (part: ToolDelta) => chunk({ tool_calls: [part] });

describe("the chunk accumulator", () => {
  it("joins argument fragments per index even when the indices interleave", () => {
    const acc = createChunkAccumulator();
    acc.add(toolDelta({ index: 0, id: "a", type: "function", function: { name: "one", arguments: "" } }));
    acc.add(toolDelta({ index: 1, id: "b", type: "function", function: { name: "two", arguments: '{"x"' } }));
    acc.add(toolDelta({ index: 0, function: { arguments: '{"y":' } }));
    acc.add(toolDelta({ index: 1, function: { arguments: ":1}" } }));
    acc.add(toolDelta({ index: 0, function: { arguments: "2}" } }));
    acc.add(chunk({}, "tool_calls"));
    expect(acc.result().content).toEqual([
      { type: "toolCall", id: "a", name: "one", arguments: '{"y":2}' },
      { type: "toolCall", id: "b", name: "two", arguments: '{"x":1}' },
    ]);
  });

  it("does not double a tool name that a server repeats on every fragment", () => {
    const acc = createChunkAccumulator();
    acc.add(toolDelta({ index: 0, id: "a", function: { name: "getTime", arguments: "{" } }));
    acc.add(toolDelta({ index: 0, function: { name: "getTime", arguments: "}" } }));
    expect(acc.result().content).toEqual([{ type: "toolCall", id: "a", name: "getTime", arguments: "{}" }]);
  });

  it("returns each chunk's text so it can be streamed, and reports finished only after a finish_reason", () => {
    const acc = createChunkAccumulator();
    expect(acc.add(chunk({ role: "assistant", content: "" }))).toBe("");
    expect(acc.add(chunk({ content: "Hel" }))).toBe("Hel");
    expect(acc.finished).toBe(false);
    expect(acc.add(chunk({ content: "lo" }, "stop"))).toBe("lo");
    expect(acc.finished).toBe(true);
    expect(acc.result()).toMatchObject({ content: [{ type: "text", text: "Hello" }], stopReason: "stop" });
  });

  it("calls the stop reason toolUse when tool calls came with finish_reason stop", () => {
    const acc = createChunkAccumulator();
    acc.add(toolDelta({ index: 0, id: "a", function: { name: "f", arguments: "{}" } }));
    acc.add(chunk({}, "stop"));
    expect(acc.result().stopReason).toBe("toolUse");
  });
});

describe("tool calls that share a stream index", () => {
  it("keeps calls apart when a server sends every call at index 0 with its own id", () => {
    const acc = createChunkAccumulator();
    acc.add(toolDelta({ index: 0, id: "call_a", type: "function", function: { name: "getTime", arguments: '{"city":' } }));
    acc.add(toolDelta({ index: 0, function: { arguments: '"Paris"}' } }));
    acc.add(toolDelta({ index: 0, id: "call_b", type: "function", function: { name: "getWeather", arguments: '{"city":"Rome"}' } }));
    acc.add(chunk({}, "tool_calls"));
    expect(acc.result().content).toEqual([
      { type: "toolCall", id: "call_a", name: "getTime", arguments: '{"city":"Paris"}' },
      { type: "toolCall", id: "call_b", name: "getWeather", arguments: '{"city":"Rome"}' },
    ]);
  });

  it("still joins fragments that repeat the same id at the same index", () => {
    const acc = createChunkAccumulator();
    acc.add(toolDelta({ index: 0, id: "call_a", function: { name: "getTime", arguments: "{" } }));
    acc.add(toolDelta({ index: 0, id: "call_a", function: { arguments: "}" } }));
    expect(acc.result().content).toEqual([{ type: "toolCall", id: "call_a", name: "getTime", arguments: "{}" }]);
  });
});
