/**
 * formatMsgForLLM's per-message cache: a stored message never changes, so each is formatted once and the
 * same wire object comes back at every later step (the request encoder keeps its bytes with it).
 */
import { describe, expect, it } from "vitest";
import { budgetContext } from "../../src/core/context-budget.ts";
import { formatMsgForLLM } from "../../src/core/format-messages.ts";
import type { AgentContext, AgentMessage, AssistantMessage } from "../../src/core/types.ts";
import { makeTool, newState, toolMap, userMessage } from "./support.ts";

const context = (messages: AgentMessage[]): AgentContext => ({ systemPrompt: "Be brief.", messages, tools: toolMap(makeTool("getTime")) });

const answer = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  stopReason: "stop",
  timestamp: 1,
});

/** A request for the policy's window of `history`, and the same formatted from an unmarked copy. */
const requestFor = (history: AgentMessage[], budget = 100_000) =>
  formatMsgForLLM(budgetContext(newState([makeTool("getTime")], history), budget));
const freshRequestFor = (history: AgentMessage[], budget = 100_000) => {
  const context = budgetContext(newState([makeTool("getTime")], history), budget);
  return formatMsgForLLM({ ...context, messages: [...context.messages] });
};

const emptyFailedTurn: AssistantMessage = { role: "assistant", content: [], stopReason: "error", errorMessage: "boom", timestamp: 1 };

describe("formatMsgForLLM across steps", () => {
  it("returns the same wire object for a history message at every later step", () => {
    const history: AgentMessage[] = [userMessage("hi")];
    const first = formatMsgForLLM(context(history)).messages[1];
    history.push(userMessage("again"));
    const second = formatMsgForLLM(context(history)).messages[1];
    expect(second).toBe(first);
  });

  it("formats a message appended later and keeps it after the earlier ones", () => {
    const history: AgentMessage[] = [userMessage("one")];
    formatMsgForLLM(context(history));
    history.push(userMessage("two"));
    expect(formatMsgForLLM(context(history)).messages.map((m) => m.content)).toEqual(["Be brief.", "one", "two"]);
  });

  it("keeps leaving out an empty failed turn at later steps", () => {
    const history: AgentMessage[] = [userMessage("hi"), emptyFailedTurn];
    formatMsgForLLM(context(history));
    expect(formatMsgForLLM(context(history)).messages.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("returns the same tool definition object for the same tool at every step", () => {
    const tools = toolMap(makeTool("getTime"));
    const first = formatMsgForLLM({ systemPrompt: "", messages: [], tools }).tools[0];
    const second = formatMsgForLLM({ systemPrompt: "", messages: [], tools }).tools[0];
    expect(second).toBe(first);
    expect(first?.function.name).toBe("getTime");
  });

  it("gives the same request as a fresh formatting after messages are appended to the policy's window", () => {
    const history: AgentMessage[] = [userMessage("one"), emptyFailedTurn];
    requestFor(history);
    history.push(answer("two"), userMessage("three"));
    expect(requestFor(history)).toEqual(freshRequestFor(history));
  });

  it("gives the same request as a fresh formatting after the history is trimmed from the front", () => {
    const history: AgentMessage[] = [userMessage("one"), answer("two"), userMessage("three"), answer("four")];
    requestFor(history);
    // As trimToWindow does, then more appended than was dropped, before the next step.
    history.splice(0, 2);
    history.push(userMessage("five"), answer("six"), userMessage("seven"));
    expect(requestFor(history).messages.map((m) => m.content)).toEqual(["You are a test agent.", "three", "four", "five", "six", "seven"]);
  });

  it("gives the same request as a fresh formatting when the policy's window starts later", () => {
    const history: AgentMessage[] = [];
    for (let n = 0; n < 30; n++) {
      history.push(userMessage(`question ${n} ${"q".repeat(200)}`), answer(`answer ${n} ${"a".repeat(200)}`));
      expect(requestFor(history, 800)).toEqual(freshRequestFor(history, 800));
    }
    expect(budgetContext(newState([makeTool("getTime")], history), 800).trimmed).toBeDefined();
  });

  it("leaves a request handed out at an earlier step as it was", () => {
    const history: AgentMessage[] = [userMessage("one")];
    const first = requestFor(history);
    history.push(answer("two"));
    requestFor(history);
    expect(first.messages.map((m) => m.content)).toEqual(["You are a test agent.", "one"]);
  });
});
