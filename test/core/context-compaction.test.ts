/**
 * Compaction in the core loop: the threshold (estimate or the previous call's reported prompt tokens),
 * the summary call (no tools), rolling summaries, a tool call never sent without its result, the current
 * run's user message and last step always sent, a deployer's prepareContext seeing the compacted context,
 * overflow recovery (compact and try once more, never twice), a failed summary falling back to trimming,
 * and the summary call's usage handed to the host.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/core/agent-loop.ts";
import { CONTEXT_OVERFLOW_CODE, type ContextSummary, SUMMARY_PROMPT_TITLE } from "../../src/core/context-compaction.ts";
import type { ChatMessage, LlmRequest } from "../../src/core/llm-request.ts";
import type { AgentMessage, AgentState, LlmResponse, Usage } from "../../src/core/types.ts";
import { callTools, drainOnce, makeTool, newState, recordingSink, reply, userMessage } from "./support.ts";

const BUDGET = 2_000;

/** `turns` turns of four messages each: user, assistant with a tool call, its result, the answer (~250 tokens a turn). */
function history(turns: number, filler = 200): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let t = 0; t < turns; t++) {
    messages.push(
      userMessage(`question ${t} ${"q".repeat(filler)}`),
      {
        role: "assistant",
        content: [{ type: "toolCall", id: `c${t}`, name: "lookup", arguments: {} }],
        stopReason: "toolUse",
        timestamp: 1,
      },
      {
        role: "toolResult",
        toolCallId: `c${t}`,
        toolName: "lookup",
        content: [{ type: "text", text: `result ${t} ${"r".repeat(filler)}` }],
        details: {},
        isError: false,
        timestamp: 1,
      },
      { role: "assistant", content: [{ type: "text", text: `answer ${t} ${"a".repeat(filler)}` }], stopReason: "stop", timestamp: 1 },
    );
  }
  return messages;
}

const isSummaryCall = (request: LlmRequest) =>
  request.tools.length === 0 && request.messages[0]?.role === "system" && request.messages[0].content.startsWith(SUMMARY_PROMPT_TITLE);

const SUMMARY_USAGE: Usage = { inputTokens: 900, outputTokens: 50, totalTokens: 950 };

/** A model that answers summary calls with a numbered summary and steps from `steps` otherwise. */
function model(steps: (LlmResponse | Error)[], summaries: (string | Error)[] = []) {
  const requests: LlmRequest[] = [];
  const summaryRequests: LlmRequest[] = [];
  let n = 0;
  const llmCall = async (request: LlmRequest): Promise<LlmResponse> => {
    if (isSummaryCall(request)) {
      summaryRequests.push(structuredClone(request));
      const next = summaries.shift() ?? `summary ${++n}`;
      if (next instanceof Error) throw next;
      return { role: "assistant", content: [{ type: "text", text: next }], usage: SUMMARY_USAGE };
    }
    requests.push(structuredClone(request));
    const step = steps.shift();
    if (!step) throw new Error("no step left");
    if (step instanceof Error) throw step;
    return step;
  };
  return { llmCall, requests, summaryRequests };
}

/** Every tool message in a request follows the assistant message that called it. */
function expectPairsWhole(request: LlmRequest) {
  const called = new Set<string>();
  for (const m of request.messages) {
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) called.add(c.id);
    if (m.role === "tool") expect(called.has(m.tool_call_id), `result ${m.tool_call_id} sent without its call`).toBe(true);
  }
  const answered = new Set(request.messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])));
  for (const m of request.messages)
    if (m.role === "assistant")
      for (const c of m.tool_calls ?? []) expect(answered.has(c.id), `call ${c.id} sent without its result`).toBe(true);
}

const textOfChat = (m: ChatMessage | undefined) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""));
const chars = (request: LlmRequest) => JSON.stringify(request).length;

async function run(state: AgentState, m: ReturnType<typeof model>, extra: Record<string, unknown> = {}) {
  const sink = recordingSink();
  const stored: { summary: ContextSummary; usage: Usage | undefined }[] = [];
  const failures: unknown[] = [];
  const answer = await runAgentLoop({
    state,
    llmCall: m.llmCall,
    emit: sink.emit,
    maxContextTokens: BUDGET,
    compactAt: 0.8,
    onCompacted: (summary, usage) => void stored.push({ summary, usage }),
    onCompactionFailed: (err) => void failures.push(err),
    ...extra,
  });
  return { answer, sink, stored, failures };
}

describe("compaction", () => {
  it("does nothing below the threshold", async () => {
    const state = newState([makeTool("lookup")], history(4)); // ~1,000 tokens of 1,600
    const m = model([reply("ok")]);
    const { sink } = await run(state, m, { drainPending: drainOnce(userMessage("next")) });
    expect(m.summaryRequests).toHaveLength(0);
    expect(sink.ofType("contextCompacted")).toHaveLength(0);
    expect(m.requests[0]!.messages).toHaveLength(1 + 17);
  });

  it("summarises the oldest turns with no tools once the request passes COMPACT_AT of the budget", async () => {
    const state = newState([makeTool("lookup")], history(8)); // ~2,000 tokens
    const m = model([reply("ok")]);
    const { sink, stored } = await run(state, m, { drainPending: drainOnce(userMessage("next")) });
    expect(m.summaryRequests).toHaveLength(1);
    expect(m.summaryRequests[0]!.tools).toEqual([]);
    expect(textOfChat(m.summaryRequests[0]!.messages[1])).toContain("question 0");
    const [event] = sink.ofType("contextCompacted");
    expect(event!.tokensBefore).toBeGreaterThan(0.8 * BUDGET);
    expect(event!.tokensAfter).toBeLessThanOrEqual(0.6 * BUDGET);
    // The request: system prompt, the summary, then the messages after it (starting at a turn's user message).
    const request = m.requests[0]!;
    expect(textOfChat(request.messages[1])).toContain("summary 1");
    expect(textOfChat(request.messages[2])).toMatch(/^question \d/);
    expect(request.messages.at(-1)).toMatchObject({ role: "user", content: "next" });
    expect(request.messages).toHaveLength(2 + 33 - event!.summarizedMessages);
    expect(stored).toEqual([{ summary: { text: "summary 1", summarizedMessages: event!.summarizedMessages }, usage: SUMMARY_USAGE }]);
    expect(state.summary).toEqual(stored[0]!.summary);
    // History keeps every original message.
    expect(state.messages).toHaveLength(32 + 2);
  });

  it("judges the request by the previous call's reported prompt tokens when they exceed the estimate", async () => {
    const messages = history(4);
    (messages[15] as { usage?: Usage }).usage = { inputTokens: 1_700, outputTokens: 10, totalTokens: 1_710 };
    const m = model([reply("ok")]);
    const { sink } = await run(newState([makeTool("lookup")], messages), m, { drainPending: drainOnce(userMessage("next")) });
    expect(m.summaryRequests).toHaveLength(1);
    expect(sink.ofType("contextCompacted")[0]!.tokensBefore).toBe(1_700);
  });

  it("rolls the previous summary into the next one", async () => {
    const state = newState([makeTool("lookup")], history(8));
    const m = model([reply("ok"), reply("ok again")]);
    await run(state, m, { drainPending: drainOnce(userMessage("next")) });
    const first = state.summary!;
    state.messages.push(...history(6).slice(0, 24));
    await run(state, m, { drainPending: drainOnce(userMessage("later")) });
    expect(m.summaryRequests).toHaveLength(2);
    const transcript = textOfChat(m.summaryRequests[1]!.messages[1]);
    expect(transcript).toContain(`Previous summary (of ${first.summarizedMessages} messages):\nsummary 1`);
    expect(state.summary!.summarizedMessages).toBeGreaterThan(first.summarizedMessages);
    expect(textOfChat(m.requests[1]!.messages[1])).toContain("summary 2");
    // The second transcript starts where the first summary stopped.
    expect(transcript.split("Messages to summarise:\n")[1]).toMatch(/^User: question 5 /);
  });

  it("never sends a tool call without its result, and summarises a long run's older steps but not its user message nor its last step", async () => {
    const big = "x".repeat(1_200);
    const tool = makeTool("lookup", { execute: () => ({ content: [{ type: "text", text: big }], details: {}, terminate: false }) });
    const steps: LlmResponse[] = [];
    for (let i = 0; i < 10; i++) steps.push(callTools({ id: `s${i}`, name: "lookup" }));
    steps.push(reply("done"));
    const state = newState([tool], history(2));
    const m = model(steps);
    const { sink } = await run(state, m, { drainPending: drainOnce(userMessage("the task")) });
    expect(sink.ofType("contextCompacted").length).toBeGreaterThanOrEqual(1);
    for (const request of m.requests) {
      expectPairsWhole(request);
      // The run's user message is always sent, and the request stays within the budget.
      expect(request.messages.some((msg) => msg.role === "user" && msg.content === "the task")).toBe(true);
      expect(chars(request) / 4).toBeLessThan(BUDGET * 1.2);
    }
    // Later requests carry the summary, then the run's user message, then the newest steps.
    const last = m.requests.at(-1)!;
    expect(textOfChat(last.messages[1])).toMatch(/^\[Summary of the \d+ earlier messages/);
    expect(last.messages[2]).toMatchObject({ role: "user", content: "the task" });
    expect(last.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "s9" });
  });

  it("hands a deployer's prepareContext the compacted context", async () => {
    const seen: AgentMessage[][] = [];
    const state = newState([makeTool("lookup")], history(8));
    const m = model([reply("ok")]);
    await run(state, m, {
      drainPending: drainOnce(userMessage("next")),
      prepareContext: (s: AgentState) => {
        seen.push([...s.messages]);
        return { systemPrompt: s.systemPrompt, messages: s.messages, tools: s.tools };
      },
    });
    expect(seen.at(-1)![0]).toMatchObject({ role: "user" });
    expect(JSON.stringify(seen.at(-1)![0])).toContain("summary 1");
    expect(seen.at(-1)!.length).toBeLessThan(state.messages.length);
  });

  it("falls back to trimming when the summary call fails, and the run goes on", async () => {
    const state = newState([makeTool("lookup")], history(12)); // ~3,000 tokens: over the budget itself
    const m = model([reply("ok")], [new Error("summary model down")]);
    const { sink, answer, failures, stored } = await run(state, m, { drainPending: drainOnce(userMessage("next")) });
    expect(answer.content).toEqual([{ type: "text", text: "ok" }]);
    expect(failures).toHaveLength(1);
    expect(stored).toHaveLength(0);
    expect(sink.ofType("contextCompacted")).toHaveLength(0);
    expect(sink.ofType("contextTrimmed")).toHaveLength(1);
    expect(sink.ofType("error")).toHaveLength(0);
  });

  it("compacts and tries the step once more when the model answers that the context is too long", async () => {
    const overflow = () => Object.assign(new Error("This model's maximum context length is 1000 tokens"), { code: CONTEXT_OVERFLOW_CODE });
    const state = newState([makeTool("lookup")], history(5)); // ~1,250 tokens: under the threshold
    const m = model([overflow(), reply("ok")]);
    const { sink, answer } = await run(state, m, { drainPending: drainOnce(userMessage("next")) });
    expect(answer.content).toEqual([{ type: "text", text: "ok" }]);
    expect(m.summaryRequests).toHaveLength(1);
    expect(sink.ofType("contextCompacted")).toHaveLength(1);
    expect(chars(m.requests[1]!)).toBeLessThan(chars(m.requests[0]!) * 0.7);
    expect(sink.ofType("llmRetry")).toHaveLength(0);

    // A second overflow on the retried step ends the run with the error.
    const again = model([overflow(), overflow(), reply("never")]);
    const second = await run(newState([makeTool("lookup")], history(5)), again, { drainPending: drainOnce(userMessage("next")) });
    expect(second.answer.stopReason).toBe("error");
    expect(again.requests).toHaveLength(2);
  });

  it("trims to half the budget after an overflow when no summary can be made", async () => {
    const overflow = Object.assign(new Error("context too long"), { code: CONTEXT_OVERFLOW_CODE });
    const state = newState([makeTool("lookup")], history(5));
    const m = model([overflow, reply("ok")], [new Error("summary failed too")]);
    const { sink, answer } = await run(state, m, { drainPending: drainOnce(userMessage("next")) });
    expect(answer.content).toEqual([{ type: "text", text: "ok" }]);
    expect(sink.ofType("contextTrimmed")[0]).toMatchObject({ maxContextTokens: BUDGET / 2 });
    expectPairsWhole(m.requests[1]!);
  });

  it("stops as aborted when the run is aborted during the summary call", async () => {
    const controller = new AbortController();
    const sink = recordingSink();
    const llmCall = async (request: LlmRequest, options: { signal?: AbortSignal }): Promise<LlmResponse> => {
      if (!isSummaryCall(request)) return reply("never");
      controller.abort();
      throw options.signal?.reason ?? new Error("aborted");
    };
    const answer = await runAgentLoop(
      {
        state: newState([makeTool("lookup")], history(8)),
        llmCall,
        emit: sink.emit,
        maxContextTokens: BUDGET,
        compactAt: 0.8,
        drainPending: drainOnce(userMessage("next")),
      },
      controller.signal,
    );
    expect(answer.stopReason).toBe("aborted");
    expect(sink.ofType("contextCompacted")).toHaveLength(0);
  });

  it("cuts a summary far past its word limit to its head and tail before storing it", async () => {
    const rambling = `start ${"blah ".repeat(20_000)}end`;
    const state = newState([makeTool("lookup")], history(8));
    const m = model([reply("ok")], [rambling]);
    const { stored } = await run(state, m, { drainPending: drainOnce(userMessage("next")) });
    const text = stored[0]!.summary.text;
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(text.startsWith("start blah")).toBe(true);
    expect(text.endsWith("blah end")).toBe(true);
    expect(state.summary!.text).toBe(text);
    expect(chars(m.requests[0]!) / 4).toBeLessThan(BUDGET);
  });

  it("caps the summary call to what is left of the budget and judges the budget again before the step's call", async () => {
    const budgeted = async (limit: number) => {
      let used = 0;
      const maxTokens: { summary: boolean; maxTokens: number | undefined }[] = [];
      const m = model([reply("ok")]);
      const llmCall = (request: LlmRequest, options: { maxTokens?: number }) => {
        maxTokens.push({ summary: isSummaryCall(request), maxTokens: options.maxTokens });
        return m.llmCall(request);
      };
      const result = await run(newState([makeTool("lookup")], history(8)), m, {
        llmCall,
        drainPending: drainOnce(userMessage("next")),
        onCompacted: (_summary: ContextSummary, usage: Usage | undefined) => {
          used += usage?.totalTokens ?? 0;
        },
        checkBudget: () => (used >= limit ? { exceeded: { scope: "session", limit, used } } : { remaining: limit - used }),
      });
      return { ...result, m, maxTokens };
    };
    // Room for the summary and the step: each call is capped to what was left just before it.
    const roomy = await budgeted(2_000);
    expect(roomy.answer.content).toEqual([{ type: "text", text: "ok" }]);
    expect(roomy.maxTokens).toEqual([
      { summary: true, maxTokens: 2_000 },
      { summary: false, maxTokens: 2_000 - SUMMARY_USAGE.totalTokens },
    ]);
    // The summary spent what was left: the run stops before the step's call.
    const spent = await budgeted(900);
    expect(spent.answer.stopReason).toBe("budget_exceeded");
    expect(spent.sink.ofType("contextCompacted")).toHaveLength(1);
    expect(spent.sink.ofType("budgetExceeded")).toEqual([expect.objectContaining({ scope: "session", limit: 900, used: 950 })]);
    expect(spent.maxTokens).toEqual([{ summary: true, maxTokens: 900 }]);
    expect(spent.m.requests).toHaveLength(0);
  });

  it("is off without compactAt", async () => {
    const state = newState([makeTool("lookup")], history(12));
    const m = model([reply("ok")]);
    const sink = recordingSink();
    await runAgentLoop({ state, llmCall: m.llmCall, emit: sink.emit, maxContextTokens: BUDGET, drainPending: drainOnce(userMessage("x")) });
    expect(m.summaryRequests).toHaveLength(0);
    expect(sink.ofType("contextTrimmed")).toHaveLength(1);
  });
});
