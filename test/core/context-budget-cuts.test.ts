/**
 * The default context policy walks back from the newest message with each message's kept estimate. Its
 * answer must be the policy's definition and the one a fresh computation gives (the same history in a
 * new array): after appends, after a trim from the front, and for every budget.
 */
import { describe, expect, it } from "vitest";
import { budgetContext, estimateMessageTokens, estimateToolTokens } from "../../src/core/context-budget.ts";
import type { AgentContext, AgentMessage, AgentState, AssistantMessage, ToolResultMessage } from "../../src/core/types.ts";
import { makeTool, newState, userMessage } from "./support.ts";

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

/** Message `n` of a varied history: turns of different lengths and sizes. */
function messageNumber(n: number): AgentMessage[] {
  const size = 20 + ((n * 37) % 300);
  if (n % 7 === 0) return [userMessage(`question ${n} ${"q".repeat(size)}`)];
  if (n % 7 === 6) return [assistantText(`answer ${n} ${"a".repeat(size)}`)];
  return [assistantCall(`c${n}`), result(`c${n}`, `result ${n} ${"r".repeat(size)}`)];
}

/** The same computation on a copy of the history array. */
const fresh = (state: AgentState, budget: number) => budgetContext({ ...state, messages: [...state.messages] }, budget);
const shape = (context: AgentContext) => ({ messages: [...context.messages], trimmed: context.trimmed });

/**
 * The policy as stated, walking every candidate: the oldest user message (else, with none, assistant
 * message) from which everything to the end fits; the current turn always goes.
 */
function cutByDefinition(state: AgentState, budget: number): number {
  const { messages } = state;
  const fixed = 8 + Math.ceil(state.systemPrompt.length / 4) + [...state.tools.values()].reduce((n, t) => n + estimateToolTokens(t), 0);
  const fitsFrom = (i: number) => fixed + messages.slice(i).reduce((n, m) => n + estimateMessageTokens(m), 0) <= budget;
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  if (lastUser < 0) {
    const oldest = messages.findIndex((m, i) => m.role === "assistant" && fitsFrom(i));
    return Math.max(oldest, 0);
  }
  const oldest = messages.findIndex((m, i) => i < lastUser && m.role === "user" && fitsFrom(i));
  return oldest < 0 ? lastUser : oldest;
}

describe("the context policy's cut", () => {
  it("cut where the policy's definition cuts, at every step of a growing history", () => {
    const state = newState([makeTool("getTime")], []);
    for (let n = 0; n < 60; n++) {
      state.messages.push(...messageNumber(n));
      for (const budget of [300, 1_000, 4_000]) {
        const cut = cutByDefinition(state, budget);
        expect(budgetContext(state, budget).messages).toEqual(state.messages.slice(cut));
      }
    }
  });

  it("give the same context as a fresh computation at every step of a growing history", () => {
    const state = newState([makeTool("getTime")], []);
    for (let n = 0; n < 120; n++) {
      state.messages.push(...messageNumber(n));
      for (const budget of [500, 2_000, 8_000]) expect(shape(budgetContext(state, budget))).toEqual(shape(fresh(state, budget)));
    }
  });

  it("give the same context as a fresh computation after the history is trimmed from the front", () => {
    const state = newState([makeTool("getTime")], []);
    for (let n = 0; n < 80; n++) state.messages.push(...messageNumber(n));
    expect(budgetContext(state, 2_000).trimmed).toBeDefined();
    // As trimToWindow does (at a user message), then more appended than was dropped, before the next step.
    const before = state.messages.length;
    state.messages.splice(0, 21);
    for (let n = 80; state.messages.length <= before; n++) state.messages.push(...messageNumber(n));
    expect(shape(budgetContext(state, 2_000))).toEqual(shape(fresh(state, 2_000)));
  });

  it("give the same context as a fresh computation in a history with no user message", () => {
    const state = newState([], []);
    for (let n = 1; n < 60; n++) {
      if (n % 7 === 0) continue;
      state.messages.push(...messageNumber(n));
      expect(shape(budgetContext(state, 1_500))).toEqual(shape(fresh(state, 1_500)));
    }
    expect(budgetContext(state, 1_500).trimmed).toBeDefined();
  });
});
