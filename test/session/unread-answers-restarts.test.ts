/**
 * Unread answers across restarts: the run record keeps the runEnd seqs of the answers nobody has taken
 * (run-record.ts), so a restart between a run's end and the take still delivers the answer, exactly once;
 * and a session stored before schema step 13, with answers on the old output queue, delivers those in
 * order after it migrates (one whose runEnd the log trimmed is counted as evicted, with the old counter).
 * abortAllDurableObjects() resets every object of this Worker, so this file runs in the workers-restarts project.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../src/core/index.ts";
import { textOf } from "../support/text.ts";
import { createSession, nextResponse, openEvents, script, send, snapshotOf, stubOf, type TestSession } from "./support.ts";

const take = (s: TestSession) => s.handle.takeResponse(0);

/** Sends `count` messages, following each turn on the event stream only; returns the runs' ids and answers. */
async function turnsUnread(s: TestSession, count: number): Promise<{ runId: string; response: AssistantMessage }[]> {
  const events = await openEvents(s);
  const ends: { runId: string; response: AssistantMessage }[] = [];
  for (let i = 1; i <= count; i++) {
    await send(s, `question ${i}`);
    const end = (await events.until("runEnd")).at(-1)!.json as unknown as { runId: string; response: AssistantMessage };
    ends.push({ runId: end.runId, response: end.response });
  }
  await events.cancel();
  return ends;
}

describe("unread answers across restarts", () => {
  it("delivers an answer a restart came between its run's end and the take, exactly once", async () => {
    const s = await createSession();
    await script(s, { text: "before the restart" }, { text: "after it" });
    await turnsUnread(s, 1);
    await abortAllDurableObjects();
    expect((await snapshotOf(s)).queues.output).toBe(1);
    expect(textOf((await take(s)) as AssistantMessage)).toBe("before the restart");
    await abortAllDurableObjects();
    expect(await take(s)).toBeNull();
    expect((await snapshotOf(s)).queues.output).toBe(0);
    await turnsUnread(s, 1);
    expect(textOf((await nextResponse(s)) as AssistantMessage)).toBe("after it");
  });

  it("delivers the answers a session stored before step 13 had queued, in order, and keeps its evicted count", async () => {
    const s = await createSession();
    await script(s, ...Array.from({ length: 3 }, (_, i) => ({ text: `answer ${i + 1}` })));
    const ends = await turnsUnread(s, 3);

    // As a session stored before step 13: its answers on the output queue (keyed by run id, oldest first,
    // one of them a run whose runEnd the log has trimmed), the record without them, the counter in its row.
    await runInDurableObject(stubOf(s), (_instance, state) => {
      const sql = state.storage.sql;
      const record = JSON.parse(sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'record'`).one().value);
      delete record.answers;
      delete record.responsesEvicted;
      sql.exec(`UPDATE meta SET value = ? WHERE key = 'record'`, JSON.stringify(record));
      const queued = [{ runId: "trimmed-run", response: ends[0]!.response }, ...ends];
      for (const { runId, response } of queued)
        sql.exec(
          `INSERT INTO queue (id, kind, message_id, json) VALUES ((SELECT COALESCE(MAX(id), 0) + 1 FROM queue), 'output', ?, ?)`,
          runId,
          JSON.stringify(response),
        );
      sql.exec(`INSERT INTO meta (key, value) VALUES ('responsesEvicted', '2')`);
      sql.exec(`UPDATE meta SET value = '12' WHERE key = 'schema_version'`);
    });
    await abortAllDurableObjects();

    const snap = await snapshotOf(s);
    expect({ output: snap.queues.output, evicted: snap.responsesEvicted }).toEqual({ output: 3, evicted: 3 });
    const taken = [await take(s), await take(s), await take(s), await take(s)];
    expect(taken.map((m) => (m ? textOf(m) : null))).toEqual(["answer 1", "answer 2", "answer 3", null]);
    const left = await runInDurableObject(stubOf(s), (_instance, state) => ({
      queued: state.storage.sql.exec(`SELECT 1 FROM queue WHERE kind = 'output'`).toArray().length,
      counterRows: state.storage.sql.exec(`SELECT 1 FROM meta WHERE key = 'responsesEvicted'`).toArray().length,
    }));
    expect(left).toEqual({ queued: 0, counterRows: 0 });
  });
});
