/**
 * Long-lived sessions through the Worker: unread answers never stop a chat, waiting approvals close
 * on abort and DELETE, storing odd values never fails a run, settings change mid-session, DELETE erases
 * the session behind a tombstone, idle sessions expire, and 50-turn chats are answered turn by turn.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../src/core/index.ts";
import { RECORD_KEY, type RunRecord } from "../../src/session/run/run-record.ts";
import type { SessionMeta } from "../../src/session/storage/session-meta.ts";
import { textOf } from "../support/text.ts";
import { trimEventLog } from "./crash-states.ts";
import { api, createSession, nextResponse, openEvents, script, send, snapshotOf, type TestSession, stubOf } from "./support.ts";

const approve = (s: TestSession, id: string) =>
  api(`/v1/sessions/${s.id}/tool-calls/${id}/approval`, { method: "POST", key: s.key, json: { approve: true } });

describe("unread answers (the output channel)", () => {
  it("keeps answering after 16 unread answers: the 17th evicts the oldest and the snapshot counts it", async () => {
    const s = await createSession();
    await script(s, ...Array.from({ length: 17 }, (_, i) => ({ text: `answer ${i + 1}` })));
    const events = await openEvents(s);
    for (let i = 1; i <= 17; i++) {
      expect((await send(s, `question ${i}`)).status).toBe(202);
      const end = (await events.until("runEnd")).at(-1)!;
      expect(textOf(end.json.response as AssistantMessage)).toBe(`answer ${i}`);
    }
    const snap = await snapshotOf(s);
    expect(snap.queues.output).toBe(16);
    expect(snap.responsesEvicted).toBe(1);
    expect(textOf(await nextResponse(s))).toBe("answer 2");
    await events.cancel();
  });

  it("hands an answer to a caller already waiting, keeping nothing unread; one nobody waits for stays unread", async () => {
    const s = await createSession();
    await script(s, { text: "waited for", delayMs: 200 }, { text: "kept" });
    // Counts the answers the session's record keeps unread (a run's end given its runEnd's seq).
    type Counted = { session: { record: RunRecord & { kept?: number } } };
    await runInDurableObject(stubOf(s), (instance) => {
      const record = (instance as unknown as Counted).session.record;
      const end = record.end.bind(record);
      record.kept = 0;
      record.end = (answerSeq) => ((record.kept! += answerSeq === undefined ? 0 : 1), end(answerSeq));
    });
    const kept = () => runInDurableObject(stubOf(s), (instance) => (instance as unknown as Counted).session.record.kept);
    const waiting = nextResponse(s);
    await send(s, "first");
    expect(textOf(await waiting)).toBe("waited for");
    expect(await kept()).toBe(0);
    const events = await openEvents(s, (await snapshotOf(s)).lastEventSeq);
    await send(s, "second");
    await events.until("runEnd");
    expect(await kept()).toBe(1);
    expect((await snapshotOf(s)).queues.output).toBe(1);
    expect(textOf(await nextResponse(s))).toBe("kept");
    expect((await snapshotOf(s)).queues.output).toBe(0);
    await events.cancel();
  });
});

describe("unread answers and the event log's window", () => {
  it("skips an unread answer whose runEnd the log trimmed, counting it as evicted", async () => {
    const s = await createSession();
    await script(s, { text: "trimmed away" }, { text: "still here" });
    const events = await openEvents(s);
    const ends: number[] = [];
    for (const text of ["one", "two"]) {
      await send(s, text);
      ends.push((await events.until("runEnd")).at(-1)!.json.seq);
    }
    await events.cancel();
    // As the log's trim does once 5,000 newer events are stored: the first answer's runEnd row is gone.
    await trimEventLog(s, ends[0]!);
    expect(textOf(await nextResponse(s))).toBe("still here");
    const snap = await snapshotOf(s);
    expect({ unread: snap.queues.output, evicted: snap.responsesEvicted }).toEqual({ unread: 0, evicted: 1 });
  });
});

describe("approvals and the end of a run", () => {
  it("closes a waiting approval for good when the run is aborted: gone from the snapshot, a late decision gets 409", async () => {
    const s = await createSession({ requireApproval: ["slowEcho"] });
    await script(s, { toolCalls: [{ id: "w1", name: "slowEcho", arguments: { text: "x" } }] });
    const events = await openEvents(s);
    await send(s, "go");
    await events.until("toolApprovalRequired");
    expect((await snapshotOf(s)).pendingApprovals).toHaveLength(1);
    await api(`/v1/sessions/${s.id}/abort`, { method: "POST", key: s.key });
    expect((await events.until("runEnd")).at(-1)!.json.stopReason).toBe("aborted");
    expect((await snapshotOf(s)).pendingApprovals).toEqual([]);
    expect((await approve(s, "w1")).status).toBe(409);
    // Nothing waits any more, so the heartbeat no longer re-arms every few seconds (only the idle deadline).
    await runDurableObjectAlarm(stubOf(s));
    const alarm = await runInDurableObject(stubOf(s), (_instance, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeGreaterThan(Date.now() + 86_400_000);
    await events.cancel();
  });

  it("answers a decision after DELETE with 410 and does not run the tool", async () => {
    const s = await createSession({ requireApproval: ["countedWork"] });
    await script(s, { toolCalls: [{ id: "d1", name: "countedWork", arguments: {} }] });
    const events = await openEvents(s);
    await send(s, "go");
    await events.until("toolApprovalRequired");
    expect((await api(`/v1/sessions/${s.id}`, { method: "DELETE", key: s.key })).status).toBe(200);
    expect((await approve(s, "d1")).status).toBe(410);
  });
});

describe("stored values", () => {
  it("finishes a run whose tool returns a BigInt, a cycle and 3 MB of details, and the next run works", async () => {
    const s = await createSession();
    await script(s, { toolCalls: [{ id: "o1", name: "oddValues", arguments: {} }] }, { text: "handled" }, { text: "still here" });
    const events = await openEvents(s);
    await send(s, "go");
    const run = await events.until("runEnd");
    expect(run.filter((e) => e.event === "toolExecEnd")).toHaveLength(1);
    expect(run.at(-1)!.json.response).toMatchObject({ content: [{ text: "handled" }] });
    const result = (await snapshotOf(s)).messages.find((m) => m.role === "toolResult") as unknown as { details: Record<string, unknown> };
    expect(String((result.details.storageNotes as string[]).at(-1))).toMatch(/over the 100000 limit/);
    await send(s, "again");
    expect((await events.until("runEnd")).at(-1)!.json.response).toMatchObject({ content: [{ text: "still here" }] });
    await events.cancel();
  });
});

describe("settings", () => {
  it("makes the session in view ask before every tool call after PATCH requireApproval", async () => {
    const s = await createSession();
    const res = await api(`/v1/sessions/${s.id}`, { method: "PATCH", key: s.key, json: { requireApproval: ["*"] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ requireApproval: ["*"] });
    expect((await snapshotOf(s)).requireApproval).toEqual(["*"]);
    await script(s, { toolCalls: [{ id: "p1", name: "slowEcho", arguments: { text: "x", ms: 1 } }] }, { text: "ok" });
    const events = await openEvents(s);
    await send(s, "go");
    expect((await events.until("toolApprovalRequired")).at(-1)!.json).toMatchObject({ toolCallId: "p1" });
    await approve(s, "p1");
    await events.until("runEnd");
    await events.cancel();
  });

  it("refuses a PATCH with an unknown field, an unknown tool or nothing to change", async () => {
    const s = await createSession();
    for (const json of [{ systemPrompt: "x" }, { requireApproval: ["noSuchTool"] }, {}]) {
      const res = await api(`/v1/sessions/${s.id}`, { method: "PATCH", key: s.key, json });
      expect(res.status).toBe(400);
    }
  });
});

describe("end of life", () => {
  it("erases the session's storage on DELETE and answers 410 on every route after", async () => {
    const s = await createSession();
    await script(s, { text: "hello" });
    await send(s, "hi");
    await nextResponse(s);
    expect((await api(`/v1/sessions/${s.id}`, { method: "DELETE", key: s.key })).status).toBe(200);
    const rows = await runInDurableObject(stubOf(s), (_instance, state) => ({
      messages: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM messages").one().n,
      events: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM events").one().n,
      meta: state.storage.sql
        .exec<{ key: string }>("SELECT key FROM meta WHERE key != 'schema_version'")
        .toArray()
        .map((r) => r.key),
    }));
    expect(rows).toEqual({ messages: 0, events: 0, meta: ["tombstone"] });
    for (const [path, method] of [
      ["", "GET"],
      ["/messages", "POST"],
      ["/events", "GET"],
      ["", "DELETE"],
    ] as const) {
      const res = await api(`/v1/sessions/${s.id}${path}`, {
        method,
        key: s.key,
        ...(method === "POST" ? { json: { content: "x" } } : {}),
      });
      expect(res.status).toBe(410);
    }
  });

  it("erases a session idle for longer than SESSION_IDLE_TTL_DAYS when its alarm fires", async () => {
    const s = await createSession();
    // Through the session's own meta: the object is the table's only writer and remembers what it wrote.
    // The run record's row (run-record.ts) holds when the session was last active.
    await runInDurableObject(stubOf(s), (instance) => {
      const { meta } = (instance as unknown as { session: { meta: SessionMeta } }).session;
      meta.write(RECORD_KEY, { ...meta.read<object>(RECORD_KEY), lastActiveAt: Date.now() - 31 * 86_400_000 });
    });
    await runDurableObjectAlarm(stubOf(s));
    const res = await api(`/v1/sessions/${s.id}`, { key: s.key });
    expect(res.status).toBe(410);
    expect(await res.json()).toMatchObject({ error: { message: "Session expired after being idle and was erased" } });
  });

  it("keeps an active session when its alarm fires before the idle deadline", async () => {
    const s = await createSession();
    await runDurableObjectAlarm(stubOf(s));
    expect((await snapshotOf(s)).status).toBe("idle");
  });

  it("shows the session's token usage totals in the snapshot", async () => {
    const s = await createSession();
    await script(
      s,
      { text: "one", usage: { prompt_tokens: 10, completion_tokens: 3 } },
      { text: "two", usage: { prompt_tokens: 20, completion_tokens: 4 } },
    );
    await send(s, "a");
    await nextResponse(s);
    await send(s, "b");
    await nextResponse(s);
    expect((await snapshotOf(s)).usage).toEqual({ inputTokens: 30, outputTokens: 7, totalTokens: 37, budget: null });
  });
});

describe("50-turn conversations", () => {
  it("answers 50 turns followed only through the event stream (nobody calls responses/next)", async () => {
    const s = await createSession();
    await script(s, ...Array.from({ length: 50 }, (_, i) => ({ text: `reply ${i + 1}` })));
    const events = await openEvents(s);
    for (let i = 1; i <= 50; i++) {
      await send(s, `turn ${i}`);
      expect(textOf((await events.until("runEnd")).at(-1)!.json.response as AssistantMessage)).toBe(`reply ${i}`);
    }
    const snap = await snapshotOf(s);
    // The snapshot carries the newest page; the whole history is one page of 100 away.
    const history = await api(`/v1/sessions/${s.id}/messages?limit=100`, { key: s.key });
    expect(((await history.json()) as { messages: unknown[] }).messages).toHaveLength(100);
    expect(snap.responsesEvicted).toBe(34);
    await events.cancel();
  }, 60_000);

  it("answers 50 turns driven only through responses/next", async () => {
    const s = await createSession();
    await script(s, ...Array.from({ length: 50 }, (_, i) => ({ text: `reply ${i + 1}` })));
    for (let i = 1; i <= 50; i++) {
      await send(s, `turn ${i}`);
      expect(textOf(await nextResponse(s))).toBe(`reply ${i}`);
    }
    expect((await snapshotOf(s)).responsesEvicted).toBe(0);
  }, 60_000);
});

describe("tool-call identity through the Worker", () => {
  it("runs the tool every turn for a model that numbers its calls call_0 each time, with an approval each turn", async () => {
    const s = await createSession({ requireApproval: ["slowEcho"] });
    const turn = (text: string) => [
      { toolCalls: [{ id: "call_0", name: "slowEcho", arguments: { text, ms: 1 } }] },
      { text: `done ${text}` },
    ];
    await script(s, ...turn("one"), ...turn("two"));
    const events = await openEvents(s);
    const ids: string[] = [];
    for (const text of ["one", "two"]) {
      await send(s, text);
      const asked = (await events.until("toolApprovalRequired")).at(-1)!;
      const id = String(asked.json.toolCallId);
      ids.push(id);
      expect((await approve(s, id)).status).toBe(200);
      const run = await events.until("runEnd");
      expect(run.find((e) => e.event === "toolExecEnd")!.json).toMatchObject({
        toolCallId: id,
        isError: false,
        result: { content: [{ text: `echo: ${text}` }] },
      });
    }
    expect(ids[0]).toBe("call_0");
    expect(ids[1]).not.toBe("call_0");
    await events.cancel();
  });
});
