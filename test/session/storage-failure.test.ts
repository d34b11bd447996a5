/**
 * A failed write is never silent. Storage is broken under a running session (its messages table renamed
 * away, so the next message cannot be stored): the run ends with an error the client sees live, marked
 * unstored and without an SSE id; nothing of the failed batch is published; the session reloads from
 * what was stored, and once storage works again the interrupted run resumes and answers, with the event
 * log's seqs still gapless.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createSession, openEvents, script, snapshotOf, send, type TestSession, stubOf } from "./support.ts";

const sql = (s: TestSession, statement: string) =>
  runInDurableObject(stubOf(s), (_instance, state) => void state.storage.sql.exec(statement));

describe("a failed write", () => {
  it("ends the run visibly, publishes nothing unstored, and resumes from what was stored", async () => {
    const s = await createSession();
    await script(s, { text: "lost with the failed write", delayMs: 1_000 }, { text: "answered after the restart" });
    const events = await openEvents(s);
    await send(s, "hello");
    const started = await events.until("messageStart");
    await sql(s, "ALTER TABLE messages RENAME TO messages_away");

    const failed = await events.until("runEnd");
    const error = failed.find((e) => e.event === "error")!;
    const end = failed.at(-1)!;
    expect(error.json).toMatchObject({ unstored: true });
    expect(String(error.json.message)).toContain("Storing the session's progress failed");
    expect(end.json).toMatchObject({ unstored: true, stopReason: "error" });
    expect(error.id || undefined).toBeUndefined();
    expect(end.id || undefined).toBeUndefined();
    // The answer whose storing failed was never published as if stored.
    expect(failed.filter((e) => e.event === "messageEnd")).toEqual([]);

    await sql(s, "ALTER TABLE messages_away RENAME TO messages");
    // The heartbeat alarm (or the next input) takes the interrupted run up again.
    await runDurableObjectAlarm(stubOf(s));
    const resumed = await events.until("runEnd");
    expect(resumed.at(-1)!.json).toMatchObject({ response: { content: [{ text: "answered after the restart" }] } });
    expect(resumed.map((e) => e.event)).toContain("messageAbandoned");

    const messages = (await snapshotOf(s)).messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    // Every stored event, from the first, has the next seq: the failed batch left no hole and no duplicate.
    const replay = await openEvents(s, 0);
    const seqs = (await replay.until("runEnd")).map((e) => Number(e.id));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(Number(started.at(-1)!.id)).toBeLessThan(seqs.at(-1)!);
    await replay.cancel();
    await events.cancel();
    expect((await api(`/v1/sessions/${s.id}`, { key: s.key })).status).toBe(200);
  });
});
