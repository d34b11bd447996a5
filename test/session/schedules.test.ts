/**
 * Schedules through the Worker: the routes and their refusals, a fire as a marked user message with its
 * event, repeats stepping from the due time, exactly one fire for repeated alarms and clock jumps, a full
 * input queue delaying (never dropping) a fire, no idle expiry while a schedule waits, DELETE cancelling.
 * The test Worker sets SCHEDULE_MIN_INTERVAL_MS=300 and MAX_SCHEDULES=5 (vitest.config.ts).
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RECORD_KEY } from "../../src/session/run/run-record.ts";
import type { SessionMeta } from "../../src/session/storage/session-meta.ts";
import { sleep } from "../support/time.ts";
import { makeScheduleDue, shiftSchedule } from "./crash-states.ts";
import { api, createSession, llmRequests, openEvents, script, send, snapshotOf, type TestSession, stubOf } from "./support.ts";

const post = (s: TestSession, json: unknown) => api(`/v1/sessions/${s.id}/schedules`, { method: "POST", key: s.key, json });
const listOf = async (s: TestSession) => (await s.handle.schedules()).schedules;

/** Makes schedule `id` due `agoMs` ago, as if the clock had jumped past it (nothing fires until the object wakes). */
const makeDue = makeScheduleDue;

/** The stored events of `type`, straight from the log. */
const eventsOf = (s: TestSession, type: string) =>
  runInDurableObject(stubOf(s), (_i, state) =>
    state.storage.sql
      .exec<{ json: string }>("SELECT json FROM events ORDER BY seq")
      .toArray()
      .flatMap((r) => r.json.split("\n").map((text) => JSON.parse(text) as Record<string, unknown>))
      .filter((e) => e.type === type),
  );

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(25);
  }
}

describe("the schedule routes", () => {
  it("creates, lists (also in the snapshot) and cancels a schedule", async () => {
    const s = await createSession();
    const res = await post(s, { message: "check the weather", cron: "0 7 * * *", name: "morning" });
    expect(res.status).toBe(201);
    const { id, nextRunAt } = (await res.json()) as { id: string; nextRunAt: number };
    expect(new Date(nextRunAt).getUTCHours()).toBe(7);
    const entry = {
      id,
      name: "morning",
      kind: "cron",
      spec: "0 7 * * *",
      message: "check the weather",
      nextRunAt,
      lastRunAt: null,
      runs: 0,
    };
    expect(await listOf(s)).toEqual([entry]);
    expect((await snapshotOf(s)).schedules).toEqual([entry]);
    expect(await s.handle.cancelSchedule(id)).toEqual({ id, cancelled: true });
    expect(await listOf(s)).toEqual([]);
    const again = await api(`/v1/sessions/${s.id}/schedules/${id}`, { method: "DELETE", key: s.key });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  it("refuses a bad spec with a 400 naming the problem, and stores nothing", async () => {
    const s = await createSession();
    const cases: [unknown, string][] = [
      [{ message: "x", delayMs: 1000, everyMs: 1000 }, "exactly one of at, delayMs, cron, everyMs"],
      [{ message: "x" }, "exactly one of"],
      [{ message: "x", everyMs: 100 }, "at least 300 ms (SCHEDULE_MIN_INTERVAL_MS)"],
      [{ message: "x", cron: "61 * * * *" }, "cron minute field"],
      [{ message: "x", at: "2020-01-01T00:00:00Z" }, "in the past"],
      [{ message: "x", at: "tomorrow" }, "ISO 8601"],
      [{ message: "", delayMs: 10 }, "message"],
      [{ message: "x", delayMs: 10, when: "now" }, "unknown field(s): when"],
    ];
    for (const [body, problem] of cases) {
      const res = await post(s, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(problem);
    }
    expect(await listOf(s)).toEqual([]);
  });

  it("answers 429 past MAX_SCHEDULES, 404 for a schedule id of another shape, 415 for a non-JSON body", async () => {
    const s = await createSession();
    for (let i = 0; i < 5; i++) expect((await post(s, { message: `m${i}`, delayMs: 3_600_000 })).status).toBe(201);
    const over = await post(s, { message: "one too many", delayMs: 3_600_000 });
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { message: string } }).error.message).toContain("MAX_SCHEDULES");
    expect(await listOf(s)).toHaveLength(5);
    expect((await api(`/v1/sessions/${s.id}/schedules/not-an-id`, { method: "DELETE", key: s.key })).status).toBe(404);
    const text = await api(`/v1/sessions/${s.id}/schedules`, {
      method: "POST",
      key: s.key,
      body: "message=x&delayMs=1",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(text.status).toBe(415);
    expect((await api(`/v1/sessions/${s.id}/schedules`, { key: "wrong" })).status).toBe(404);
  });
});

describe("a schedule's fire", () => {
  it("sends its message as a user message marked with scheduleId, logs scheduleFired and runs once; a one-shot then ends", async () => {
    const s = await createSession();
    await script(s, { text: "checked" });
    const events = await openEvents(s);
    const { id } = await s.handle.schedule({ message: "time to check", delayMs: 200 });
    const seen = await events.until("runEnd");
    const fired = seen.find((e) => e.event === "scheduleFired")!;
    expect(fired.json).toMatchObject({ type: "scheduleFired", scheduleId: id, messageId: expect.any(String) });
    expect(seen.findIndex((e) => e.event === "scheduleFired")).toBeLessThan(seen.findIndex((e) => e.event === "runStart"));
    const user = (await snapshotOf(s)).messages[0] as unknown as Record<string, unknown>;
    expect(user).toMatchObject({ role: "user", scheduleId: id, content: [{ type: "text", text: "time to check" }] });
    expect((await llmRequests(s))[0]!.body.messages.at(-1)).toEqual({ role: "user", content: "time to check" });
    expect(await listOf(s)).toEqual([]);
    await events.cancel();
  });

  it("repeats everyMs from its due time, counting runs", async () => {
    const s = await createSession();
    const { id, nextRunAt } = await s.handle.schedule({ message: "tick", everyMs: 300 });
    await waitFor(async () => (await eventsOf(s, "scheduleFired")).length >= 2);
    const [entry] = await listOf(s);
    expect(entry!.id).toBe(id);
    expect(entry!.runs).toBeGreaterThanOrEqual(2);
    // Each due time is the first one plus whole intervals: late alarms do not drift it.
    expect((entry!.nextRunAt - nextRunAt) % 300).toBe(0);
    await s.handle.cancelSchedule(id);
  });

  it("fires once when two alarms come for the same due time", async () => {
    const s = await createSession();
    const { id } = await s.handle.schedule({ message: "once", delayMs: 3_600_000 });
    await makeDue(s, id);
    await Promise.all([runDurableObjectAlarm(stubOf(s)), runInDurableObject(stubOf(s), (instance) => instance.alarm())]);
    await runInDurableObject(stubOf(s), (instance) => instance.alarm());
    await waitFor(async () => (await snapshotOf(s)).status === "idle" && (await llmRequests(s)).length === 1);
    expect(await eventsOf(s, "scheduleFired")).toHaveLength(1);
    expect((await snapshotOf(s)).messages.filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("fires once after the clock jumps past many due times, and steps to the next one from the due time", async () => {
    const s = await createSession();
    const { id } = await s.handle.schedule({ message: "every", everyMs: 3_600_000 });
    const [before] = await listOf(s);
    // Ten intervals missed and then some.
    await shiftSchedule(s, id, -11 * 3_600_000);
    await runDurableObjectAlarm(stubOf(s));
    await waitFor(async () => (await llmRequests(s)).length === 1);
    const [after] = await listOf(s);
    expect(await eventsOf(s, "scheduleFired")).toHaveLength(1);
    expect(after).toMatchObject({ runs: 1, nextRunAt: before!.nextRunAt });
    await s.handle.cancelSchedule(id);
  });

  it("does not fire when an alarm comes before the due time (a clock that jumped back)", async () => {
    const s = await createSession();
    const { id, nextRunAt } = await s.handle.schedule({ message: "later", delayMs: 3_600_000 });
    await runInDurableObject(stubOf(s), (instance) => instance.alarm());
    expect(await eventsOf(s, "scheduleFired")).toEqual([]);
    expect(await listOf(s)).toMatchObject([{ id, runs: 0, nextRunAt }]);
    expect(await runInDurableObject(stubOf(s), (_i, state) => state.storage.getAlarm())).toBe(nextRunAt);
  });

  it("waits while the input queue is full, then fires exactly once", async () => {
    const s = await createSession();
    await script(s, { text: "slow", delayMs: 1_500 });
    const events = await openEvents(s);
    await send(s, "start a long run");
    await events.until("runStart");
    for (let i = 0; i < 16; i++) expect((await send(s, `queued ${i}`)).status).toBe(202);
    expect((await send(s, "no room")).status).toBe(429);
    const { id } = await s.handle.schedule({ message: "scheduled while full", delayMs: 0 });
    await runDurableObjectAlarm(stubOf(s));
    expect(await eventsOf(s, "scheduleFired")).toEqual([]);
    expect(await listOf(s)).toMatchObject([{ id, runs: 0 }]);
    await waitFor(async () => (await eventsOf(s, "scheduleFired")).length === 1 && (await snapshotOf(s)).status === "idle");
    await sleep(300);
    expect(await eventsOf(s, "scheduleFired")).toHaveLength(1);
    const scheduled = (await snapshotOf(s)).messages.filter((m) => (m as unknown as { scheduleId?: string }).scheduleId === id);
    expect(scheduled).toHaveLength(1);
    expect(await listOf(s)).toEqual([]);
    await events.cancel();
  });
});

describe("schedules and the session's life", () => {
  it("keeps an idle session with a schedule pending past its idle deadline; without one it expires", async () => {
    const s = await createSession();
    const { id, nextRunAt } = await s.handle.schedule({ message: "far ahead", delayMs: 3_600_000 });
    // Through the session's own meta: the object is the table's only writer and remembers what it wrote.
    // The run record's row (run-record.ts) holds when the session was last active.
    await runInDurableObject(stubOf(s), (instance) => {
      const { meta } = (instance as unknown as { session: { meta: SessionMeta } }).session;
      meta.write(RECORD_KEY, { ...meta.read<object>(RECORD_KEY), lastActiveAt: Date.now() - 31 * 86_400_000 });
    });
    await runInDurableObject(stubOf(s), (instance) => instance.alarm());
    expect((await api(`/v1/sessions/${s.id}`, { key: s.key })).status).toBe(200);
    expect(await runInDurableObject(stubOf(s), (_i, state) => state.storage.getAlarm())).toBe(nextRunAt);
    await s.handle.cancelSchedule(id);
    await runInDurableObject(stubOf(s), (instance) => instance.alarm());
    expect((await api(`/v1/sessions/${s.id}`, { key: s.key })).status).toBe(410);
  });

  it("cancels every schedule when the session is deleted: nothing fires and no alarm is left", async () => {
    const s = await createSession();
    await s.handle.schedule({ message: "never", delayMs: 200 });
    await s.handle.schedule({ message: "never either", everyMs: 300 });
    await s.handle.shutdown();
    await sleep(700);
    expect(await llmRequests(s)).toEqual([]);
    expect(await runInDurableObject(stubOf(s), (_i, state) => state.storage.getAlarm())).toBeNull();
    expect(await runInDurableObject(stubOf(s), (_i, state) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM schedules").one().n)).toBe(
      0,
    );
  });
});
