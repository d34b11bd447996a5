import { describe, expect, it } from "vitest";
import { BoundedEventStore } from "../../src/mcp/server/mcp-event-store.ts";
import { progressOf } from "../../src/mcp/server/progress.ts";

const message = (id: number) => ({ jsonrpc: "2.0" as const, method: "notifications/message", params: { n: id } });

async function replay(store: BoundedEventStore, after: string): Promise<{ stream: string; ids: string[] }> {
  const ids: string[] = [];
  const stream = await store.replayEventsAfter(after, { send: async (id) => void ids.push(id) });
  return { stream, ids };
}

describe("the /mcp replay buffer", () => {
  it("replays a stream's events after the given id, and only that stream's", async () => {
    const store = new BoundedEventStore();
    const a1 = await store.storeEvent("a", message(1));
    await store.storeEvent("b", message(2));
    const a3 = await store.storeEvent("a", message(3));
    expect(await replay(store, a1)).toEqual({ stream: "a", ids: [a3] });
    expect(await store.getStreamIdForEventId(a3)).toBe("a");
  });

  it("keeps at most its count and its bytes, dropping the oldest first", async () => {
    const byCount = new BoundedEventStore(3, 1_000_000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await byCount.storeEvent("s", message(i)));
    expect(byCount.size.events).toBe(3);
    expect((await replay(byCount, "s_0")).ids).toEqual(ids.slice(2));
    const byBytes = new BoundedEventStore(100, 200);
    for (let i = 0; i < 10; i++) await byBytes.storeEvent("s", message(i));
    expect(byBytes.size.bytes).toBeLessThanOrEqual(200);
    expect(byBytes.size.events).toBeGreaterThan(0);
  });
});

describe("progress notifications from partial results", () => {
  it("report a tool's own progress and total when the partial result carries them", () => {
    expect(progressOf({ progress: 50, total: 100, message: "half" }, 7)).toEqual({ progress: 50, total: 100, message: "half" });
  });

  it("count 1, 2, 3 with the partial result as text otherwise", () => {
    expect(progressOf({ step: 3 }, 3)).toEqual({ progress: 3, message: '{"step":3}' });
    expect(progressOf({ progress: "lots" }, 1)).toEqual({ progress: 1, message: '{"progress":"lots"}' });
  });
});
