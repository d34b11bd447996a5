/**
 * The rows one tool step writes, pinned as numbers: on Cloudflare a row written is the dearest unit of a
 * turn's bill (docs/benchmarks.md "What a turn costs"), so a change that adds a write to the step shows up
 * here as a changed count for a reviewer to accept, not as a timing. The bench's meter (sql-meter.ts) is
 * put on the live object's storage, where the step's writes (step-writes.ts) run their statements; a step
 * is a turn of three tool steps minus a turn of one, halved, so the turn's fixed writes drop out.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meterState, readMeter } from "../../scripts/bench/sql-meter.ts";
import { createSession, nextResponse, script, send, stubOf, type TestSession } from "./support.ts";

/** A turn of `steps` tool steps (one idempotent getTime call each) and a text answer: rows by statement. */
async function turn(session: TestSession, steps: number): Promise<Record<string, number>> {
  const calls = Array.from({ length: steps }, (_, i) => ({
    toolCalls: [{ id: `call_${i}`, name: "getTime", arguments: { timezone: "Europe/Paris" } }],
  }));
  await script(session, ...calls, { text: "done" });
  await runInDurableObject(stubOf(session), () => void readMeter(true));
  await send(session, `${steps} steps`);
  await nextResponse(session);
  const { bySql } = await runInDurableObject(stubOf(session), () => readMeter(true));
  return Object.fromEntries(Object.entries(bySql).map(([sql, { rowsWritten }]) => [sql.split(" (")[0]!, rowsWritten]));
}

describe("a tool step's storage", () => {
  it("writes three rows: one for its five events and its two messages, nothing else", async () => {
    const session = await createSession();
    await script(session, { text: "ready" });
    await send(session, "hi");
    await nextResponse(session);
    await runInDurableObject(stubOf(session), (_instance, state) => void meterState(state));

    const one = await turn(session, 1);
    const three = await turn(session, 3);
    const perStep = Object.fromEntries(
      Object.keys(three)
        .map((sql) => [sql, ((three[sql] ?? 0) - (one[sql] ?? 0)) / 2] as const)
        .filter(([, rows]) => rows !== 0),
    );
    // The events (messageStart and messageEnd of the tool call, toolExecStart, toolExecEnd, messageEnd of
    // its result) are stored in one commit: one row.
    expect(perStep).toEqual({ "INSERT INTO events": 1, "INSERT INTO messages": 2 });
  });
});
