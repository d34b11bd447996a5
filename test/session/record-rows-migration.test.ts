/**
 * A session stored before schema steps 11 and 12 keeps what it had after it migrates: its Idempotency-Keys
 * (step 11 rebuilds their table WITHOUT ROWID) still answer a repeat with the first answer, and its run
 * record's four meta rows (`usage`, `delegatedTokens`, `lastActiveAt`, an interrupted `run`) are folded into
 * the one `record` row (step 12): the usage total stands, and the interrupted run resumes. abortAllDurableObjects()
 * resets every object of this Worker, so this file runs in the workers-restarts project.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createSession, nextResponse, script, snapshotOf, stubOf } from "./support.ts";

describe("a session stored before the run record's one row", () => {
  it("keeps its idempotency keys, its usage and its idle clock, and resumes its interrupted run", async () => {
    const session = await createSession();
    await script(session, { text: "first" }, { text: "resumed answer" });
    const post = () =>
      api(`/v1/sessions/${session.id}/messages`, {
        method: "POST",
        key: session.key,
        headers: { "Idempotency-Key": "old-key" },
        json: { content: "hi" },
      });
    const first = (await (await post()).json()) as { messageId: string };
    await nextResponse(session);
    const usage = (await snapshotOf(session)).usage;
    expect(usage.totalTokens).toBeGreaterThan(0);

    // As a session stored before step 11: the rowid table, its rows, and the run record in four rows, with
    // a run the restart interrupted after the user's message was stored.
    const lastActiveAt = Date.now() - 5_000;
    await runInDurableObject(stubOf(session), (_instance, state) => {
      const sql = state.storage.sql;
      const keys = sql.exec(`SELECT key, fingerprint, answer, bytes, created_at FROM idempotency_keys`).toArray();
      sql.exec(`DROP TABLE idempotency_keys`);
      sql.exec(
        `CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, answer TEXT, bytes INTEGER NOT NULL, created_at INTEGER NOT NULL)`,
      );
      for (const k of keys)
        sql.exec(`INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?)`, k.key, k.fingerprint, k.answer, k.bytes, k.created_at);
      const lastSeq = sql.exec<{ seq: number }>(`SELECT MAX(seq) AS seq FROM messages`).one().seq;
      sql.exec(
        `INSERT INTO messages (seq, json) VALUES (?, ?)`,
        lastSeq + 1,
        JSON.stringify({ role: "user", content: [{ type: "text", text: "again" }], timestamp: 1 }),
      );
      const rows = {
        usage: JSON.stringify({ inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens }),
        delegatedTokens: "0",
        lastActiveAt: String(lastActiveAt),
        run: JSON.stringify({ runId: "interrupted-run", startedAt: lastActiveAt, startSeq: lastSeq }),
      };
      sql.exec(`DELETE FROM meta WHERE key = 'record'`);
      for (const [key, value] of Object.entries(rows)) sql.exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, key, value);
      sql.exec(`UPDATE meta SET value = '10' WHERE key = 'schema_version'`);
    });
    await abortAllDurableObjects();

    // The interrupted run resumes (the LLM's second scripted reply answers it) and ends.
    const resumed = await nextResponse(session);
    expect(resumed, JSON.stringify(resumed)).toMatchObject({ content: [{ type: "text", text: "resumed answer" }] });
    const after = await snapshotOf(session);
    expect(after.usage.totalTokens).toBeGreaterThan(usage.totalTokens);
    const stored = await runInDurableObject(stubOf(session), (_instance, state) =>
      state.storage.sql
        .exec<{ key: string; value: string }>(
          `SELECT key, value FROM meta WHERE key IN ('run', 'usage', 'delegatedTokens', 'lastActiveAt', 'record')`,
        )
        .toArray(),
    );
    expect(stored.map((r) => r.key)).toEqual(["record"]);
    const record = JSON.parse(stored[0]!.value) as { run?: unknown; lastActiveAt: number };
    expect(record.run).toBeUndefined();
    expect(record.lastActiveAt).toBeGreaterThan(lastActiveAt);

    // The key kept before the migration answers a repeat with the first answer.
    const repeat = await post();
    expect(repeat.status).toBe(202);
    expect(await repeat.json()).toEqual(first);
  });
});
