/**
 * Restarts at every point of a schedule's fire: before its transaction (the schedule is still due), after
 * it but before the run started (the message is queued), and during the run it started. Each ends with
 * exactly one fire, one scheduled user message and one answer. abortAllDurableObjects() resets every
 * object of the Worker, so this file runs in the "workers-restarts" project, one file at a time.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fireDueSchedules } from "../../src/schedules/schedule-firing.ts";
import type { Session } from "../../src/session/session.ts";
import { sleep } from "../support/time.ts";
import { makeScheduleDue } from "./crash-states.ts";
import { createSession, llmRequests, script, snapshotOf, type TestSession, stubOf } from "./support.ts";

const eventTypes = (s: TestSession) =>
  runInDurableObject(stubOf(s), (_i, state) =>
    state.storage.sql
      .exec<{ types: string }>("SELECT types FROM events ORDER BY seq")
      .toArray()
      .flatMap((r) => r.types.trim().split(" ")),
  );

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(25);
  }
}

/** A one-shot schedule an hour ahead, then made due now in storage (no wake happens, so nothing fires yet). */
async function dueSchedule(s: TestSession, message: string): Promise<string> {
  const { id } = await s.handle.schedule({ message, delayMs: 3_600_000 });
  await makeScheduleDue(s, id);
  return id;
}

/** Kills the object as a crash would (memory gone, storage kept), then delivers its alarm. */
async function restart(s: TestSession): Promise<void> {
  await abortAllDurableObjects();
  await runDurableObjectAlarm(stubOf(s));
}

async function expectOneScheduledRun(s: TestSession, id: string, answer: string): Promise<void> {
  await waitFor(async () => (await eventTypes(s)).includes("runEnd") && (await snapshotOf(s)).status === "idle");
  await sleep(200); // a second fire or run would show by now
  const types = await eventTypes(s);
  expect(types.filter((t) => t === "scheduleFired")).toHaveLength(1);
  expect(types.filter((t) => t === "runEnd")).toHaveLength(1);
  const messages = (await snapshotOf(s)).messages as unknown as { role: string; scheduleId?: string; content: { text?: string }[] }[];
  expect(messages.filter((m) => m.role === "user")).toEqual([expect.objectContaining({ scheduleId: id })]);
  expect(messages.at(-1)!.content[0]!.text).toBe(answer);
  expect(await s.handle.schedules()).toEqual({ schedules: [] });
}

describe("restarts during a schedule's fire", () => {
  it("fires once when the object restarts after the due time but before the fire's transaction", async () => {
    const s = await createSession();
    await script(s, { text: "fired after the restart" });
    const id = await dueSchedule(s, "due across a restart");
    expect(await eventTypes(s)).not.toContain("scheduleFired");
    await restart(s);
    await expectOneScheduledRun(s, id, "fired after the restart");
  });

  it("runs once when the object restarts after the fire's transaction but before the run started", async () => {
    const s = await createSession();
    await script(s, { text: "ran after the restart" });
    const id = await dueSchedule(s, "queued across a restart");
    // The fire's transaction alone, as if the object died right after it committed.
    await runInDurableObject(stubOf(s), (instance, state) => {
      const session = (instance as unknown as { session: Session }).session;
      expect(
        fireDueSchedules({ schedules: session.schedules, queues: session.queues, sink: session.sink, storage: state.storage }, Date.now()),
      ).toBe(1);
    });
    expect(await llmRequests(s)).toEqual([]);
    await restart(s);
    await expectOneScheduledRun(s, id, "ran after the restart");
    expect(await llmRequests(s)).toHaveLength(1);
  });

  it("resumes the scheduled run once when the object restarts while it runs", async () => {
    const s = await createSession();
    await script(s, { text: "never delivered", delayMs: 3_000 }, { text: "answered after the restart" });
    const id = await dueSchedule(s, "interrupted");
    await runDurableObjectAlarm(stubOf(s));
    await waitFor(async () => (await llmRequests(s)).length === 1);
    await restart(s);
    await expectOneScheduledRun(s, id, "answered after the restart");
  });
});
