/**
 * Tool-call identity belongs to the run and the call's position, not to the id the model chose:
 * duplicate or missing ids in one response are replaced before the assistant message is stored, and
 * an id the model reuses on a later turn (`call_0` every time) never matches an earlier call's journal entry.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/core/agent-loop.ts";
import { formatMsgForLLM } from "../../src/core/format-messages.ts";
import type { AgentToolResult, AssistantMessage, ToolCallJournal, ToolCallJournalEntry } from "../../src/core/types.ts";
import { callTools, drainOnce, makeTool, newState, recordingSink, reply, scriptedModel, textResult, userMessage } from "./support.ts";

/** A journal that remembers every call it was told of by id, as a host's durable journal does. */
function memoryJournal(): ToolCallJournal {
  const entries = new Map<string, ToolCallJournalEntry>();
  return {
    lookup: (id) => entries.get(id),
    markStarted: (tc) => void entries.set(tc.id, { state: "started" }),
    markExecuting: (tc) => void entries.set(tc.id, { state: "executing" }),
    markEnded: (tc, result: AgentToolResult, isError) => void entries.set(tc.id, { state: "ended", result, isError }),
  };
}

describe("tool-call ids", () => {
  it("replaces an id repeated inside one response, so each stored call has its own result on the wire", async () => {
    const runs: string[] = [];
    const echo = makeTool("echo", { execute: (id, args) => (runs.push(`${id}:${String(args.n)}`), textResult(`echo ${String(args.n)}`)) });
    const state = newState([echo]);
    const model = scriptedModel([
      callTools({ id: "dup", name: "echo", args: { n: 1 } }, { id: "dup", name: "echo", args: { n: 2 } }),
      reply("done"),
    ]);
    await runAgentLoop({ state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("go")) });

    const assistant = state.messages[1] as AssistantMessage;
    const ids = assistant.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : []));
    expect(new Set(ids).size).toBe(2);
    expect(runs).toHaveLength(2);
    const wire = formatMsgForLLM({ systemPrompt: "", messages: state.messages, tools: state.tools }).messages;
    const toolIds = wire.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : []));
    expect(toolIds).toEqual(ids);
  });

  it("gives a call with an empty id a unique id", async () => {
    const state = newState([makeTool("t")]);
    const model = scriptedModel([callTools({ id: "", name: "t" }), reply("ok")]);
    await runAgentLoop({ state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("go")) });
    const call = (state.messages[1] as AssistantMessage).content[0]!;
    expect(call).toMatchObject({ type: "toolCall" });
    expect(call.type === "toolCall" && call.id).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it("runs the tool afresh every turn when the model reuses call_0, with events for each run", async () => {
    let executions = 0;
    const counter = makeTool("count", { execute: () => textResult(`run ${++executions}`) });
    const state = newState([counter]);
    const journal = memoryJournal();
    const sink = recordingSink();
    const emit = sink.emit;
    for (let turn = 1; turn <= 3; turn++) {
      const model = scriptedModel([callTools({ id: "call_0", name: "count" }), reply(`turn ${turn}`)]);
      await runAgentLoop({ state, llmCall: model.llmCall, emit, journal, drainPending: drainOnce(userMessage(`turn ${turn}`)) });
    }
    expect(executions).toBe(3);
    const ends = sink.ofType("toolExecEnd");
    expect(ends.map((e) => e.result.content[0])).toEqual([1, 2, 3].map((n) => ({ type: "text", text: `run ${n}` })));
    expect(new Set(ends.map((e) => e.toolCallId)).size).toBe(3);
    expect(sink.ofType("toolExecStart")).toHaveLength(3);
  });

  it("renames a call whose id the run's journal holds, though that call left memory (a resumed run's window)", async () => {
    let executions = 0;
    const counter = makeTool("count", { execute: () => textResult(`run ${++executions}`) });
    // The run's first call_0 ended before a restart; the resumed run's memory starts after it.
    const journal = memoryJournal();
    journal.markEnded({ type: "function", id: "call_0", name: "count", arguments: {} }, textResult("the earlier call's result"), false);
    const state = newState([counter], [userMessage("count again")]);
    const model = scriptedModel([callTools({ id: "call_0", name: "count" }), reply("done")]);
    const sink = recordingSink();
    await runAgentLoop({ state, llmCall: model.llmCall, emit: sink.emit, journal, resumed: true, runStart: 0 });

    expect(executions).toBe(1);
    const [end] = sink.ofType("toolExecEnd");
    expect(end!.toolCallId).not.toBe("call_0");
    expect(end!.result.content[0]).toEqual({ type: "text", text: "run 1" });
  });

  it("keeps the model's id when it is new to the session", async () => {
    const state = newState([makeTool("t")]);
    const model = scriptedModel([callTools({ id: "call_xyz", name: "t" }), reply("ok")]);
    await runAgentLoop({ state, llmCall: model.llmCall, emit: () => undefined, drainPending: drainOnce(userMessage("go")) });
    expect(state.messages[2]).toMatchObject({ role: "toolResult", toolCallId: "call_xyz" });
  });
});
