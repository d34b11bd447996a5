/**
 * formatMsgForLLM's per-message cache: history is append-only, so each message is formatted once and the
 * same wire object comes back at every later step, which keeps a step's cost flat as history grows.
 */
import { describe, expect, it } from "vitest";
import { formatMsgForLLM } from "../../src/core/format-messages.ts";
import type { AgentContext, AgentMessage, AssistantMessage } from "../../src/core/types.ts";
import { makeTool, toolMap, userMessage } from "./support.ts";

const context = (messages: AgentMessage[]): AgentContext => ({ systemPrompt: "Be brief.", messages, tools: toolMap(makeTool("getTime")) });

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
});
