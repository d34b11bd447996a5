/**
 * Partial results: toolExecUpdate events live strictly between a call's toolExecStart and toolExecEnd,
 * and an onPartialResult call that comes too late (after execute, or after the call's end in a
 * parallel batch) emits nothing.
 */
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/core/events.ts";
import type { OnPartialResult } from "../../src/core/types.ts";
import { makeTool, runBatch, sleep, textResult, toolCall } from "./support.ts";

/** Index of the first event matching `type` for `toolCallId`, or -1. */
function indexOf(events: AgentEvent[], type: AgentEvent["type"], toolCallId: string): number {
  return events.findIndex((e) => e.type === type && "toolCallId" in e && e.toolCallId === toolCallId);
}

function updateIndexes(events: AgentEvent[], toolCallId: string): number[] {
  return events.flatMap((e, i) => (e.type === "toolExecUpdate" && e.toolCallId === toolCallId ? [i] : []));
}

describe("partial results", () => {
  it("emits toolExecUpdate events after toolExecStart and before toolExecEnd", async () => {
    const tool = makeTool("progress", {
      async execute(_id, _args, _signal, onPartialResult) {
        onPartialResult({ percent: 10 });
        await sleep(5);
        onPartialResult({ percent: 90 });
        return textResult("finished");
      },
    });
    const { sink } = await runBatch([tool], [toolCall("c1", "progress")]);
    const start = indexOf(sink.events, "toolExecStart", "c1");
    const end = indexOf(sink.events, "toolExecEnd", "c1");
    const updates = updateIndexes(sink.events, "c1");
    expect(updates).toHaveLength(2);
    for (const u of updates) {
      expect(u).toBeGreaterThan(start);
      expect(u).toBeLessThan(end);
    }
    expect(sink.ofType("toolExecUpdate").map((e) => e.partialResult)).toEqual([{ percent: 10 }, { percent: 90 }]);
  });

  it("emits nothing for an onPartialResult call made after execute finished", async () => {
    let kept: OnPartialResult | undefined;
    const tool = makeTool("leaky", {
      execute(_id, _args, _signal, onPartialResult) {
        kept = onPartialResult;
        return textResult("done");
      },
    });
    const { sink } = await runBatch([tool], [toolCall("c1", "leaky")]);
    const before = sink.events.length;
    kept?.({ late: true });
    expect(sink.events.length).toBe(before);
    expect(sink.ofType("toolExecUpdate")).toEqual([]);
  });

  it("drops a late update a parallel call sends after its own end while a sibling still runs", async () => {
    const quick = makeTool("quick", {
      parallelToolExecute: true,
      execute(_id, _args, _signal, onPartialResult) {
        onPartialResult("on time");
        // Fires while `slow` is still running, after quick's own end.
        setTimeout(() => onPartialResult("too late"), 10);
        return textResult("quick done");
      },
    });
    const slow = makeTool("slow", {
      parallelToolExecute: true,
      async execute(_id, _args, _signal, onPartialResult) {
        await sleep(40);
        onPartialResult("slow progress");
        return textResult("slow done");
      },
    });
    const { sink } = await runBatch([quick, slow], [toolCall("q", "quick"), toolCall("s", "slow")], { toolExecution: "parallel" });
    expect(sink.ofType("toolExecUpdate").map((e) => e.partialResult)).toEqual(["on time", "slow progress"]);
    for (const id of ["q", "s"]) {
      const end = indexOf(sink.events, "toolExecEnd", id);
      expect(end).toBeGreaterThan(-1);
      for (const u of updateIndexes(sink.events, id)) expect(u).toBeLessThan(end);
    }
  });
});
