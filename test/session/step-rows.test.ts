/**
 * The rows one tool step and one reference turn write, pinned as numbers: on Cloudflare a row written is
 * the dearest unit of a turn's bill (docs/benchmarks.md "What a turn costs"), so a change that adds a write
 * shows up here as a changed count for a reviewer to accept, not as a timing. The bench's meter
 * (sql-meter.ts) is put on the live object's storage. A step is a turn of three tool steps minus a turn of
 * one, halved, so the turn's fixed writes drop out (the step's writes, step-writes.ts, take the storage's
 * SQL handle at each commit, so they are metered as they are). The turn is metered after the session is
 * read again from storage, as a restart would, so every owner module's handle is the metered one. The
 * answer's own rows are pinned apart for the three ways a client gets it: handed to a takeResponse caller
 * already waiting (the reference turn), taken after the run ended, and never taken (a client following the
 * event stream only, past the 16 unread answers the session keeps).
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meterState, readMeter } from "../../scripts/bench/sql-meter.ts";
import { createSession, nextResponse, openEvents, script, send, snapshotOf, stubOf, type TestSession } from "./support.ts";

/** Rows written by statement (its text up to the first parenthesis), the statements that wrote none left out. */
const writers = (bySql: Record<string, { rowsWritten: number }>) =>
  Object.fromEntries(
    Object.entries(bySql)
      .filter(([, { rowsWritten }]) => rowsWritten > 0)
      .map(([sql, { rowsWritten }]) => [sql.split(" (")[0]!.replace(/\s+/g, " "), rowsWritten]),
  );

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

/** Puts the meter on the session's storage and reads the session again from it, as after a restart. */
async function metered(session: TestSession): Promise<void> {
  await runInDurableObject(stubOf(session), async (instance, state) => {
    meterState(state);
    // Read again from storage (as after a restart): the session's modules take the metered SQL handle.
    const object = instance as unknown as { session?: unknown; wake(): Promise<void> };
    object.session = undefined;
    await object.wake();
  });
}

/** Rows written since the last reading, by statement, the events' rows left out (their count depends on timing). */
async function rowsBesideEvents(session: TestSession): Promise<Record<string, number>> {
  const { bySql } = await runInDurableObject(stubOf(session), () => readMeter(true));
  const { "INSERT INTO events": _events, ...rest } = writers(bySql);
  return rest;
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

  it("a reference turn (a message, two tool steps, the answer) writes 13 rows and sets 1 alarm", async () => {
    const session = await createSession();
    await script(session, { text: "ready" });
    await send(session, "hi");
    await nextResponse(session);
    await metered(session);
    const calls = [0, 1].map((i) => ({ toolCalls: [{ id: `call_${i}`, name: "getTime", arguments: { timezone: "Europe/Paris" } }] }));
    await script(session, ...calls, { text: "done" });
    await runInDurableObject(stubOf(session), () => void readMeter(true));
    // As the client SDK does: the message under an Idempotency-Key, and takeResponse waiting for the answer
    // (handed to it: the answer writes no row of its own).
    const answer = nextResponse(session);
    await session.handle.send("two steps");
    await answer;
    const { rowsWritten, alarmsSet, bySql } = await runInDurableObject(stubOf(session), () => readMeter(true));
    expect(writers(bySql)).toEqual({
      // The run record: opened carrying the message, closed with the usage and lastActiveAt.
      "INSERT INTO meta": 2,
      // The key's answer, stored with the message's acceptance.
      "INSERT INTO idempotency_keys": 1,
      // The user's message, two tool calls and their results, the answer.
      "INSERT INTO messages": 6,
      // One row per commit: the run's start, each step, the answer with the runEnd.
      "INSERT INTO events": 4,
    });
    expect({ rowsWritten, alarmsSet }).toEqual({ rowsWritten: 13, alarmsSet: 1 });
  });
});

describe("a turn's answer", () => {
  it("taken after its run ended writes one row: the run record's cursor moved past it", async () => {
    const session = await createSession();
    await script(session, { text: "ready" }, { text: "taken late" });
    await send(session, "hi");
    await nextResponse(session);
    await metered(session);
    await runInDurableObject(stubOf(session), () => void readMeter(true));
    const events = await openEvents(session, (await snapshotOf(session)).lastEventSeq);
    await send(session, "answer when asked");
    await events.until("runEnd");
    expect(await rowsBesideEvents(session)).toEqual({ "INSERT INTO meta": 2, "INSERT INTO messages": 2 });
    expect(await nextResponse(session)).toMatchObject({ content: [{ type: "text", text: "taken late" }] });
    // The record row (the answer's runEnd seq out of its unread list); no queue row inserted and deleted.
    expect(await rowsBesideEvents(session)).toEqual({ "INSERT INTO meta": 1 });
    await events.cancel();
  });

  it("never taken (a client following the event stream only) writes no row, the 17th turn's included", async () => {
    const session = await createSession();
    await script(session, ...Array.from({ length: 17 }, (_, i) => ({ text: `answer ${i + 1}` })));
    await metered(session);
    const events = await openEvents(session);
    const perTurn: Record<string, number>[] = [];
    for (let i = 1; i <= 17; i++) {
      await runInDurableObject(stubOf(session), () => void readMeter(true));
      await send(session, `question ${i}`);
      await events.until("runEnd");
      perTurn.push(await rowsBesideEvents(session));
    }
    // Each turn: the run record opened and closed (the answer's runEnd seq kept in it), the two messages.
    // The 17th evicts the oldest unread answer in that same row: no queue row, no counter row.
    const turn = { "INSERT INTO meta": 2, "INSERT INTO messages": 2 };
    expect(perTurn).toEqual(Array.from({ length: 17 }, () => turn));
    const snapshot = await snapshotOf(session);
    expect({ unread: snapshot.queues.output, evicted: snapshot.responsesEvicted }).toEqual({ unread: 16, evicted: 1 });
    await events.cancel();
  });
});
