/**
 * The step floor's Worker (scripts/bench/floor), under `wrangler dev` as the bench runs it: it sends the
 * body it is given to the LLM unchanged, as many times as asked, one after the other, reads streamed replies
 * to the end, and reports an LLM failure instead of timing it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFloorWorker, type FloorWorker } from "../../scripts/bench/floor-worker.ts";
import { startMockOpenAi, type MockOpenAiServer } from "../../support/mock-openai-server.ts";

const request = (stream: boolean) =>
  JSON.stringify({ model: "bench-model", messages: [{ role: "system", content: "bench:floor-test" }, { role: "user", content: "héllo ✓" }], stream });

describe("the step floor Worker", () => {
  let mock: MockOpenAiServer;
  let floor: FloorWorker;
  /** The mock's taps in order: a request's arrival and its reply's last byte leaving. */
  const timeline: string[] = [];
  beforeAll(async () => {
    mock = await startMockOpenAi({ hooks: { received: () => void timeline.push("received"), replied: () => void timeline.push("replied") } });
    floor = await startFloorWorker(mock.url);
  }, 120_000);
  afterAll(async () => {
    await floor?.stop();
    await mock?.close();
  });

  it("sends the given bytes unchanged, as many times as asked", async () => {
    mock.reset();
    const body = request(false);
    await floor.replay(body, 3);
    expect(mock.requests.map((r) => r.bytes)).toEqual([1, 2, 3].map(() => Buffer.byteLength(body)));
    expect(mock.requests.every((r) => JSON.stringify(r.body) === body)).toBe(true);
  });

  it("reads a streamed reply to its end before sending again", async () => {
    mock.reset();
    timeline.length = 0;
    mock.enqueue({ text: "one two three", chunkDelayMs: 30 }, { text: "four", chunkDelayMs: 30 });
    await floor.replay(request(true), 2);
    expect(timeline).toEqual(["received", "replied", "received", "replied"]);
  });

  it("reports the LLM's failure status instead of timing it", async () => {
    mock.reset();
    mock.enqueue({ status: 500, text: "boom" });
    await expect(floor.replay(request(false), 2)).rejects.toThrow(/500/);
    expect(mock.requests).toHaveLength(1);
  });
});
