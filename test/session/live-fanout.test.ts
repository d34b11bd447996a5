/**
 * The live fan-out's write batching: events published in one synchronous burst reach each subscriber as a single
 * chunk in publish order, a subscriber joining mid-burst gets none of the burst twice, and closing flushes.
 */
import { describe, expect, it } from "vitest";
import { LiveFanout } from "../../src/session/events/live-fanout.ts";

const decoder = new TextDecoder();

/** Reads every chunk the stream delivers until it goes quiet (a macrotask without data) or ends. */
async function readChunks(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const reader = stream.getReader();
  const chunks: string[] = [];
  for (;;) {
    const next = await Promise.race([reader.read(), new Promise<"quiet">((r) => setTimeout(() => r("quiet"), 20))]);
    if (next === "quiet" || next.done) break;
    chunks.push(decoder.decode(next.value));
  }
  reader.releaseLock();
  return chunks;
}

const idsIn = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

describe("the live fan-out", () => {
  it("sends a synchronous burst of events to a subscriber as one chunk", async () => {
    const hub = new LiveFanout();
    const stream = hub.subscribe([]);
    for (let id = 1; id <= 50; id++) hub.publish(id, "toolExecUpdate", `{"i":${id}}`);
    const chunks = await readChunks(stream);
    expect(chunks).toHaveLength(1);
    expect(idsIn(chunks[0]!)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    hub.closeAll();
  });

  it("delivers every event to every subscriber in publish order", async () => {
    const hub = new LiveFanout();
    const streams = [hub.subscribe([]), hub.subscribe([])];
    hub.publish(1, "runStart", "{}");
    await Promise.resolve();
    hub.publish(2, "runEnd", "{}");
    for (const stream of streams) expect(idsIn((await readChunks(stream)).join(""))).toEqual([1, 2]);
    hub.closeAll();
  });

  it("does not send a subscriber an event published before it joined, which its replay already holds", async () => {
    const hub = new LiveFanout();
    const early = hub.subscribe([]);
    hub.publish(1, "runStart", "{}");
    const late = hub.subscribe(["id: 1\nevent: runStart\ndata: {}\n\n"]);
    hub.publish(2, "runEnd", "{}");
    expect(idsIn((await readChunks(late)).join(""))).toEqual([1, 2]);
    expect(idsIn((await readChunks(early)).join(""))).toEqual([1, 2]);
    hub.closeAll();
  });

  it("sends pending events before closing the streams", async () => {
    const hub = new LiveFanout();
    const stream = hub.subscribe([]);
    hub.publish(7, "runEnd", "{}");
    hub.closeAll();
    expect(idsIn((await readChunks(stream)).join(""))).toEqual([7]);
  });
});
