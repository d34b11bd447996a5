import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/core/index.ts";
import { DELTA_FLUSH_CHARS, DELTA_FLUSH_MS, DeltaCoalescer } from "../../src/session/run/delta-coalescer.ts";
import { sleep } from "../support/time.ts";

describe("DeltaCoalescer", () => {
  it("merges a burst of deltas into one event after the flush window", async () => {
    const out: AgentEvent[] = [];
    const c = new DeltaCoalescer((e) => out.push(e));
    for (const t of ["a", "b", "c"]) c.emit({ type: "messageDelta", text: t });
    expect(out).toEqual([]);
    await sleep(DELTA_FLUSH_MS + 20);
    expect(out).toEqual([{ type: "messageDelta", text: "abc" }]);
  });

  it("flushes pending text before any other event, keeping order", () => {
    const out: AgentEvent[] = [];
    const c = new DeltaCoalescer((e) => out.push(e));
    c.emit({ type: "messageDelta", text: "hi" });
    c.emit({ type: "runEnd", response: { role: "assistant", content: [], stopReason: "stop", timestamp: 0 }, stopReason: "stop" });
    expect(out.map((e) => e.type)).toEqual(["messageDelta", "runEnd"]);
  });

  it("flushes at once when the pending text reaches the size step", () => {
    const out: AgentEvent[] = [];
    const c = new DeltaCoalescer((e) => out.push(e));
    c.emit({ type: "messageDelta", text: "x".repeat(DELTA_FLUSH_CHARS) });
    expect(out).toHaveLength(1);
  });
});
