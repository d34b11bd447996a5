/**
 * Every value a run stores is JSON-safe and bounded: a tool returning BigInts, cycles or megabytes still
 * gets exactly one result, which serializes, fits a storage row and says what was cut.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/core/agent-loop.ts";
import { toJsonSafe } from "../../src/core/json-safe.ts";
import type { AgentEvent } from "../../src/core/events.ts";
import type { ToolResultMessage } from "../../src/core/types.ts";
import { callTools, drainOnce, makeTool, newState, reply, scriptedModel, textOf, userMessage } from "./support.ts";

/** Durable Object SQLite rows hold at most 2 MB. */
const ROW_LIMIT = 2 * 1024 * 1024;

/** Runs one call of `tool`; every emitted event and stored message is serialized as a host would. */
async function runStoring(tool: ReturnType<typeof makeTool>) {
  const rows: string[] = [];
  const events: AgentEvent[] = [];
  const state = newState([tool]);
  const final = await runAgentLoop({
    state,
    llmCall: scriptedModel([callTools({ id: "c1", name: tool.name }), reply("after the tool")]).llmCall,
    emit: (event) => {
      events.push(event);
      rows.push(JSON.stringify(event));
    },
    onMessage: (message) => void rows.push(JSON.stringify(message)),
    drainPending: drainOnce(userMessage("go")),
  });
  const results = state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
  return { final, rows, events, results };
}

describe("values a tool returns", () => {
  it("stores details holding a BigInt and a cycle as JSON, with a note naming what changed", async () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const tool = makeTool("odd", {
      execute: () => ({ content: [{ type: "text", text: "ok" }], details: { count: 10n ** 20n, cyclic }, terminate: false }),
    });
    const { final, results, events } = await runStoring(tool);
    expect(textOf(final)).toBe("after the tool");
    expect(results).toHaveLength(1);
    expect(results[0]!.details).toMatchObject({ count: "100000000000000000000", cyclic: { name: "loop", self: "[Circular]" } });
    expect(results[0]!.details.storageNotes).toEqual([
      "details.count: BigInt stored as a string",
      "details.cyclic.self: circular reference left out",
    ]);
    expect(events.filter((e) => e.type === "toolExecEnd")).toHaveLength(1);
  });

  it("replaces details larger than a storage row by a preview and a note", async () => {
    const tool = makeTool("big", {
      execute: () => ({ content: [{ type: "text", text: "ok" }], details: { blob: "x".repeat(3 * 1024 * 1024) }, terminate: false }),
    });
    const { rows, results } = await runStoring(tool);
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results[0]!.details).length).toBeLessThan(10_000);
    expect(String((results[0]!.details.storageNotes as string[])[0])).toMatch(/^details was \d+ characters of JSON, over the 100000 limit/);
    for (const row of rows) expect(row.length).toBeLessThan(ROW_LIMIT);
  });

  it("cuts content larger than a storage row even when the host set no result limit", async () => {
    const tool = makeTool("flood", {
      execute: () => ({ content: [{ type: "text", text: "y".repeat(3 * 1024 * 1024) }], details: {}, terminate: false }),
    });
    const { rows, results } = await runStoring(tool);
    expect(textOf(results[0]!)).toContain("[output truncated:");
    for (const row of rows) expect(row.length).toBeLessThan(ROW_LIMIT);
  });

  it("keeps usage with BigInt counts as numbers and drops a usage that is not one", async () => {
    const tool = makeTool("metered", {
      execute: () => ({
        content: [{ type: "text", text: "ok" }],
        details: {},
        usage: { inputTokens: 5n, outputTokens: 7 } as never,
        terminate: false,
      }),
    });
    const { results } = await runStoring(tool);
    expect(results[0]!.usage).toEqual({ inputTokens: 5, outputTokens: 7, totalTokens: 12 });

    const junk = makeTool("junk", {
      execute: () => ({ content: [{ type: "text", text: "ok" }], details: {}, usage: { tokens: "many" } as never, terminate: false }),
    });
    const second = await runStoring(junk);
    expect(second.results[0]!.usage).toBeUndefined();
    expect(second.results[0]!.details.storageNotes).toEqual(["usage was not {inputTokens, outputTokens, totalTokens} numbers: left out"]);
  });

  it("streams a partial result holding a BigInt and a cycle as JSON", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.again = cyclic;
    const tool = makeTool("progress", {
      execute: (_id, _args, _signal, onPartial) => {
        onPartial({ done: 1n, cyclic });
        return { content: [{ type: "text", text: "ok" }], details: {}, terminate: false };
      },
    });
    const { events, rows } = await runStoring(tool);
    const update = events.find((e) => e.type === "toolExecUpdate");
    expect(update).toMatchObject({ partialResult: { done: "1", cyclic: { again: "[Circular]" } } });
    expect(rows.length).toBe(events.length + 4);
  });
});

describe("toJsonSafe", () => {
  it("turns what JSON cannot hold into what JSON.stringify would keep", () => {
    const { value, notes } = toJsonSafe({ n: Number.NaN, f: () => 1, when: new Date(0), list: [undefined, 1n], err: new Error("boom") });
    expect(value).toEqual({ n: null, when: "1970-01-01T00:00:00.000Z", list: [null, "1"], err: { name: "Error", message: "boom" } });
    expect(notes).toEqual(["value.n: NaN stored as null", "value.f: function left out", "value.list[1]: BigInt stored as a string"]);
  });
});
