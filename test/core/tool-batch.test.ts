/**
 * Batches (docs/architecture.md "Agent semantics"): result order, real concurrency and its cap, when a batch goes sequential,
 * prepare order, termination and its final response, abort mid-batch, and the restart journal.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/core/agent-loop.ts";
import type { AgentTool, ToolCallJournal, ToolCallJournalEntry, ToolResultMessage } from "../../src/core/types.ts";
import {
  callTools,
  drainOnce,
  concurrency,
  makeTool,
  newState,
  reply,
  runBatch,
  scriptedModel,
  sleep,
  slowTool,
  textOf,
  textResult,
  toolCall,
  userMessage,
} from "./support.ts";

describe("parallel batches", () => {
  it("returns results in call order when the second call finishes first", async () => {
    const tracker = concurrency();
    const tools = [slowTool("slowOne", 40, tracker), slowTool("fastOne", 5, tracker)];
    const { batch, sink } = await runBatch(tools, [toolCall("a", "slowOne"), toolCall("b", "fastOne")], { toolExecution: "parallel" });
    expect(sink.ofType("toolExecEnd").map((e) => e.toolCallId)).toEqual(["b", "a"]);
    expect(batch.messages.map((m) => m.toolCallId)).toEqual(["a", "b"]);
    expect(batch.messages.map(textOf)).toEqual(["slowOne done", "fastOne done"]);
  });

  it("runs parallel-safe calls concurrently", async () => {
    const tracker = concurrency();
    const tools = [slowTool("one", 50, tracker), slowTool("two", 50, tracker)];
    await runBatch(tools, [toolCall("a", "one"), toolCall("b", "two")], { toolExecution: "parallel" });
    expect(tracker.max).toBe(2);
  });

  it("caps concurrency at maxParallelToolCalls", async () => {
    const tracker = concurrency();
    const tools = [slowTool("one", 20, tracker), slowTool("two", 20, tracker), slowTool("three", 20, tracker)];
    const calls = [toolCall("a", "one"), toolCall("b", "two"), toolCall("c", "three")];
    const { batch } = await runBatch(tools, calls, { toolExecution: "parallel", maxParallelToolCalls: 1 });
    expect(tracker.max).toBe(1);
    expect(tracker.started).toEqual(["a", "b", "c"]);
    expect(batch.messages.every((m) => !m.isError)).toBe(true);
  });

  it("runs the whole batch sequentially when one tool is not parallel-safe", async () => {
    const tracker = concurrency();
    const tools = [
      slowTool("one", 20, tracker),
      slowTool("careful", 20, tracker, { parallelToolExecute: false }),
      slowTool("three", 20, tracker),
    ];
    const calls = [toolCall("a", "one"), toolCall("b", "careful"), toolCall("c", "three")];
    await runBatch(tools, calls, { toolExecution: "parallel" });
    expect(tracker.max).toBe(1);
    expect(tracker.ended).toEqual(["a", "b", "c"]);
  });

  it("runs sequentially when the config says so, even for parallel-safe tools", async () => {
    const tracker = concurrency();
    const tools = [slowTool("one", 20, tracker), slowTool("two", 20, tracker)];
    await runBatch(tools, [toolCall("a", "one"), toolCall("b", "two")], { toolExecution: "sequential" });
    expect(tracker.max).toBe(1);
  });

  it("prepares a parallel batch in call order, even when an early beforeToolCall is slow", async () => {
    const tracker = concurrency();
    const tools = [slowTool("one", 5, tracker), slowTool("two", 5, tracker), slowTool("three", 5, tracker)];
    const order: string[] = [];
    await runBatch(tools, [toolCall("a", "one"), toolCall("b", "two"), toolCall("c", "three")], {
      toolExecution: "parallel",
      beforeToolCall: async ({ toolCall: tc }) => {
        if (tc.id === "a") await sleep(20);
        order.push(tc.id);
      },
    });
    expect(order).toEqual(["a", "b", "c"]);
  });
});

describe("termination", () => {
  const stopper = (name: string, text: string): AgentTool => makeTool(name, { execute: () => textResult(text, { terminate: true }) });
  const goer = makeTool("goer", { execute: () => textResult("keep going") });

  it("ends the run without another LLM call when every result terminates", async () => {
    const model = scriptedModel([callTools({ id: "a", name: "stopA" }, { id: "b", name: "stopB" })]);
    const state = newState([stopper("stopA", "A handed off"), stopper("stopB", "B handed off")]);
    const final = await runAgentLoop({ state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("go")) });
    expect(model.requests).toHaveLength(1);
    expect(final.stopReason).toBe("tool_use_terminated");
  });

  it("continues and calls the LLM again when only some results terminate", async () => {
    const model = scriptedModel([callTools({ id: "a", name: "stopA" }, { id: "b", name: "goer" }), reply("all done")]);
    const state = newState([stopper("stopA", "A handed off"), goer]);
    const final = await runAgentLoop({ state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("go")) });
    expect(model.requests).toHaveLength(2);
    expect(final.stopReason).toBe("stop");
    expect(textOf(final)).toBe("all done");
  });

  it("answers a terminated run with 'Tool execution completed.' followed by the tool texts, and no errorMessage", async () => {
    const model = scriptedModel([callTools({ id: "a", name: "stopA" }, { id: "b", name: "stopB" })]);
    const state = newState([stopper("stopA", "A handed off"), stopper("stopB", "B handed off")]);
    const final = await runAgentLoop({ state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("go")) });
    expect(final.content).toEqual([
      { type: "text", text: "Tool execution completed." },
      { type: "text", text: "A handed off" },
      { type: "text", text: "B handed off" },
    ]);
    expect(final.stopReason).toBe("tool_use_terminated");
    expect(final).not.toHaveProperty("errorMessage");
  });

  it("sets errorMessage on a terminated run when any result is an error", async () => {
    const model = scriptedModel([callTools({ id: "a", name: "stopA" }, { id: "b", name: "stopB" })]);
    const state = newState([stopper("stopA", "A handed off"), stopper("stopB", "B failed")]);
    const final = await runAgentLoop({
      state,
      llmCall: model.llmCall,
      afterToolCall: ({ toolCall: tc }) => (tc.id === "b" ? { isError: true } : undefined),
      emit: () => undefined,
      drainPending: drainOnce(userMessage("go")),
    });
    expect(final.stopReason).toBe("tool_use_terminated");
    expect(final.errorMessage).toBe("One or more tool calls failed");
  });
});

describe("abort mid-batch", () => {
  it("answers every call, giving the calls not run an error result", async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const aborter = makeTool("aborter", {
      execute: (id) => {
        ran.push(id);
        controller.abort();
        return textResult("pulled the plug");
      },
    });
    const other = makeTool("other", {
      execute: (id) => {
        ran.push(id);
        return textResult("should not run");
      },
    });
    const model = scriptedModel([callTools({ id: "a", name: "aborter" }, { id: "b", name: "other" }, { id: "c", name: "other" })]);
    const state = newState([aborter, other]);
    const final = await runAgentLoop(
      { state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("go")) },
      controller.signal,
    );
    expect(final.stopReason).toBe("aborted");
    expect(ran).toEqual(["a"]);

    const results = state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    const assistant = state.messages.find((m) => m.role === "assistant" && m.content.some((b) => b.type === "toolCall"));
    const callIds = assistant?.role === "assistant" ? assistant.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : [])) : [];
    expect(callIds).toEqual(["a", "b", "c"]);
    for (const id of callIds) expect(results.filter((r) => r.toolCallId === id)).toHaveLength(1);
    const skipped = results.filter((r) => r.toolCallId !== "a");
    expect(skipped.every((r) => r.isError)).toBe(true);
    expect(skipped.map(textOf)).toEqual([
      "Tool call skipped: the run was aborted before it started",
      "Tool call skipped: the run was aborted before it started",
    ]);
  });

  it("answers every call of a parallel batch aborted while its tools run", async () => {
    const controller = new AbortController();
    const waiter = makeTool("waiter", {
      parallelToolExecute: true,
      execute: () => new Promise(() => undefined), // never settles on its own
    });
    setTimeout(() => controller.abort(), 10);
    const calls = [toolCall("a", "waiter"), toolCall("b", "waiter")];
    const { batch } = await runBatch([waiter], calls, { toolExecution: "parallel" }, controller.signal);
    expect(batch.messages.map((m) => [m.toolCallId, m.isError, textOf(m)])).toEqual([
      ["a", true, "Operation aborted"],
      ["b", true, "Operation aborted"],
    ]);
  });
});

describe("journal of an interrupted run", () => {
  const journalOf = (entries: Record<string, ToolCallJournalEntry>): ToolCallJournal => ({
    lookup: (id) => entries[id],
    markStarted: () => undefined,
    markExecuting: () => undefined,
    markEnded: () => undefined,
  });

  it("reuses the result of a call that already ended instead of running it again", async () => {
    let runs = 0;
    const tool = makeTool("charge", {
      execute: () => {
        runs++;
        return textResult("charged again");
      },
    });
    const journal = journalOf({ c1: { state: "ended", result: textResult("charged once"), isError: false } });
    const { batch } = await runBatch([tool], [toolCall("c1", "charge")], { journal });
    expect(runs).toBe(0);
    expect(textOf(batch.messages[0]!)).toBe("charged once");
    expect(batch.messages[0]!.isError).toBe(false);
  });

  it("answers a call that was executing at the restart with an error result instead of re-running it", async () => {
    let runs = 0;
    const tool = makeTool("charge", {
      execute: () => {
        runs++;
        return textResult("charged again");
      },
    });
    const { batch } = await runBatch([tool], [toolCall("c1", "charge")], { journal: journalOf({ c1: { state: "executing" } }) });
    expect(runs).toBe(0);
    expect(batch.messages[0]!.isError).toBe(true);
    expect(textOf(batch.messages[0]!)).toMatch(/restarted while this tool call was running/);
  });

  it("runs an idempotent call again that was executing at the restart", async () => {
    let runs = 0;
    const tool = makeTool("lookup", {
      idempotent: true,
      execute: () => {
        runs++;
        return textResult("looked up");
      },
    });
    const { batch } = await runBatch([tool], [toolCall("c1", "lookup")], { journal: journalOf({ c1: { state: "executing" } }) });
    expect(runs).toBe(1);
    expect(batch.messages[0]!.isError).toBe(false);
    expect(textOf(batch.messages[0]!)).toBe("looked up");
  });

  it("tells the journal a call is executing before execute runs", async () => {
    const order: string[] = [];
    const tool = makeTool("step", {
      execute: () => {
        order.push("execute");
        return textResult("ok");
      },
    });
    const journal: ToolCallJournal = {
      lookup: () => undefined,
      markStarted: (tc) => void order.push(`started ${tc.id}`),
      markExecuting: (tc) => void order.push(`executing ${tc.id}`),
      markEnded: (tc, result) => void order.push(`ended ${tc.id} ${textOf({ content: result.content })}`),
    };
    await runBatch([tool], [toolCall("c1", "step")], { journal });
    expect(order).toEqual(["started c1", "executing c1", "execute", "ended c1 ok"]);
  });
});

describe("toolExecStart arguments", () => {
  it("announces JSON-text arguments as the parsed object, and unparseable text as sent", async () => {
    const { sink } = await runBatch([makeTool("t")], [toolCall("a", "t", '{"city":"Oslo"}'), toolCall("b", "t", "{broken")]);
    const starts = sink.events.filter((e) => e.type === "toolExecStart");
    expect(starts.map((e) => (e.type === "toolExecStart" ? e.arguments : undefined))).toEqual([{ city: "Oslo" }, "{broken"]);
  });
});
