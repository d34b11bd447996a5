/**
 * The default context policy: requests stay within the budget by leaving out the oldest whole turns,
 * a tool call is never sent without its result, the system prompt and the current turn always go out,
 * contextTrimmed says what was left out, and the work per step does not grow with the history.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/core/agent-loop.ts";
import { budgetContext, estimateMessageTokens, estimateToolTokens } from "../../src/core/context-budget.ts";
import type { AgentMessage, AgentState, AssistantMessage, ToolResultMessage } from "../../src/core/types.ts";
import { drainOnce, makeTool, newState, recordingSink, reply, scriptedModel, userMessage } from "./support.ts";

const assistantText = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  stopReason: "stop",
  timestamp: 1,
});
const assistantCall = (id: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name: "getTime", arguments: {} }],
  stopReason: "toolUse",
  timestamp: 1,
});
const result = (id: string, text: string): ToolResultMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "getTime",
  content: [{ type: "text", text }],
  details: {},
  isError: false,
  timestamp: 1,
});

/** `turns` turns of four messages each: user, assistant with a tool call, its result, the answer. */
function history(turns: number, filler = 200): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let t = 0; t < turns; t++) {
    // Fixed-width numbers, so every turn has the same size whatever the history's length.
    const n = String(t).padStart(6, "0");
    messages.push(
      userMessage(`question ${n} ${"q".repeat(filler)}`),
      assistantCall(`c${n}`),
      result(`c${n}`, `result ${n} ${"r".repeat(filler)}`),
      assistantText(`answer ${n} ${"a".repeat(filler)}`),
    );
  }
  return messages;
}

const contextTokens = (state: AgentState, messages: readonly AgentMessage[]) =>
  Math.ceil(state.systemPrompt.length / 4) +
  8 +
  [...state.tools.values()].reduce((n, t) => n + estimateToolTokens(t), 0) +
  messages.reduce((n, m) => n + estimateMessageTokens(m), 0);

describe("the default context policy", () => {
  it("keeps every request of a 2,000-message session within the budget", async () => {
    const state = newState([makeTool("getTime")], history(500));
    expect(state.messages).toHaveLength(2_000);
    const model = scriptedModel([reply("fine")]);
    const sink = recordingSink();
    await runAgentLoop({
      state,
      llmCall: model.llmCall,
      emit: sink.emit,
      maxContextTokens: 4_000,
      drainPending: drainOnce(userMessage("and now?")),
    });
    const sent = model.requests[0]!.messages;
    const kept = state.messages.slice(state.messages.length - (sent.length - 1), -1);
    expect(contextTokens(state, kept)).toBeLessThanOrEqual(4_000);
    // Measured independently of the estimator: the wire JSON at four characters per token.
    expect(JSON.stringify(sent).length / 4).toBeLessThan(4_000 * 1.1);
    expect(sent[0]).toEqual({ role: "system", content: "You are a test agent." });
    expect(sent.at(-1)).toEqual({ role: "user", content: "and now?" });
    // Whole turns: the first message after the system prompt starts a turn.
    expect(sent[1]!.role).toBe("user");
    expect(state.messages).toHaveLength(2_002);
  });

  it("never sends a tool result without its call, nor a call without its result", () => {
    for (let budget = 300; budget < 3_000; budget += 97) {
      const state = newState([], history(30));
      const sent = budgetContext(state, budget).messages;
      const calls = new Set(
        sent.flatMap((m) => (m.role === "assistant" ? m.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : [])) : [])),
      );
      const results = new Set(sent.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : [])));
      expect([...results]).toEqual([...calls]);
    }
  });

  it("sends the current turn whole even when it alone is over the budget", () => {
    const state = newState([], [...history(3), userMessage("x".repeat(10_000)), assistantCall("big"), result("big", "y".repeat(10_000))]);
    const context = budgetContext(state, 1_000);
    expect(context.messages).toHaveLength(3);
    expect(context.messages[0]!.role).toBe("user");
    expect(context.trimmed).toMatchObject({ omittedMessages: 12, keptMessages: 3, maxContextTokens: 1_000 });
  });

  it("leaves the history untouched when it fits", () => {
    const state = newState([], history(3));
    const context = budgetContext(state, 100_000);
    expect(context.messages).toBe(state.messages);
    expect(context.trimmed).toBeUndefined();
  });

  it("announces what it left out with one contextTrimmed event per change", async () => {
    const state = newState([makeTool("getTime")], history(50));
    const sink = recordingSink();
    const model = scriptedModel([
      { role: "assistant", content: [{ type: "toolCall", id: "n1", name: "getTime", arguments: {} }], stopReason: "toolUse" },
      reply("done"),
    ]);
    await runAgentLoop({
      state,
      llmCall: model.llmCall,
      emit: sink.emit,
      maxContextTokens: 2_000,
      drainPending: drainOnce(userMessage("go")),
    });
    const trimmed = sink.ofType("contextTrimmed");
    // Two LLM calls; an event only when what is left out changed, never two alike in a row.
    expect(trimmed.length).toBeGreaterThanOrEqual(1);
    expect(trimmed.length).toBeLessThanOrEqual(2);
    if (trimmed[1]) expect(trimmed[1].omittedMessages).not.toBe(trimmed[0]!.omittedMessages);
    expect(trimmed[0]).toMatchObject({ maxContextTokens: 2_000 });
    expect(trimmed[0]!.omittedMessages).toBeGreaterThan(0);
    expect(trimmed[0]!.estimatedTokens).toBeLessThanOrEqual(2_000);
    expect(trimmed[0]!.omittedMessages + trimmed[0]!.keptMessages).toBe(201);
  });

  it("reads the same number of messages per step for a 2,000- and a 20,000-message history", () => {
    const reads = (turns: number) => {
      const messages = history(turns);
      let count = 0;
      const counted = new Proxy(messages, {
        get(target, key, receiver) {
          if (typeof key === "string" && /^\d+$/.test(key)) count++;
          return Reflect.get(target, key, receiver);
        },
      });
      const state = newState([], counted);
      budgetContext(state, 3_000);
      count = 0;
      budgetContext(state, 3_000);
      return count;
    };
    expect(reads(5_000)).toBe(reads(500));
  });
});
