/**
 * A session stored before the events of a commit shared a row (one event a row) reads its
 * old events after it migrates (schema step 10): a replay from the start gives every event with its seq,
 * and new events go on after them. abortAllDurableObjects() resets every object of this Worker, so this
 * file runs in the workers-restarts project.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSession, nextResponse, openEvents, script, send, snapshotOf, stubOf } from "./support.ts";

describe("events stored one a row", () => {
  it("are replayed with their seqs after the migration, and new ones follow them", async () => {
    const session = await createSession();
    await script(session, { text: "first" }, { text: "second" });
    await send(session, "hi");
    await nextResponse(session);
    const before = await openEvents(session, 0);
    const stored = await before.until("runEnd");
    await before.cancel();

    // As a session stored before step 10: the same events, one a row.
    await runInDurableObject(stubOf(session), (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec(`DROP TABLE events`);
      sql.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, json TEXT NOT NULL)`);
      for (const e of stored) sql.exec(`INSERT INTO events (seq, type, json) VALUES (?, ?, ?)`, e.json.seq, e.event, e.data);
      sql.exec(`UPDATE meta SET value = '9' WHERE key = 'schema_version'`);
    });
    await abortAllDurableObjects();

    const replay = await openEvents(session, 0);
    const replayed = await replay.until("runEnd");
    await replay.cancel();
    expect(replayed.map((e) => [e.json.seq, e.event, e.data])).toEqual(stored.map((e) => [e.json.seq, e.event, e.data]));
    expect((await snapshotOf(session)).lastEventSeq).toBe(stored.at(-1)!.json.seq);

    await send(session, "again");
    await nextResponse(session);
    const next = await openEvents(session, stored.at(-1)!.json.seq);
    const after = await next.until("runEnd");
    await next.cancel();
    expect(after[0]!.json.seq).toBe(stored.at(-1)!.json.seq + 1);
    expect(after.map((e) => e.json.seq)).toEqual(after.map((_e, i) => stored.at(-1)!.json.seq + 1 + i));
  });
});
