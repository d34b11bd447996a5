import { describe, expect, it } from "vitest";
import { sleep } from "../support/time.ts";
import { createSession, llmRequests, nextResponse, openEvents, script, send, setBudget, snapshotOf } from "./support.ts";

describe("a session's token budget", () => {
  it("counts input plus output as reported, shows it in the snapshot and refuses new input once spent (429)", async () => {
    const session = await createSession();
    expect((await snapshotOf(session)).usage.budget).toBeNull();
    expect((await setBudget(session, 100)).status).toBe(200);
    await script(session, { text: "first", usage: { prompt_tokens: 60, completion_tokens: 50 } });
    expect((await send(session, "hi")).status).toBe(202);
    await nextResponse(session);
    expect((await snapshotOf(session)).usage.budget).toEqual({ scope: "session", limit: 100, used: 110 });

    const refused = await send(session, "again");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
    expect(await llmRequests(session)).toHaveLength(1);
  });

  it("caps each call's max_tokens to what is left", async () => {
    const session = await createSession();
    await setBudget(session, 1_000);
    await script(
      session,
      { toolCalls: [{ id: "t1", name: "getTime", arguments: {} }], usage: { prompt_tokens: 300, completion_tokens: 100 } },
      { text: "done", usage: { prompt_tokens: 10, completion_tokens: 10 } },
    );
    await send(session, "what time is it?");
    await nextResponse(session);
    const requests = (await llmRequests(session)) as unknown as { body: { max_tokens?: number } }[];
    expect(requests.map((r) => r.body.max_tokens)).toEqual([1_000, 600]);
  });

  it("ends a run before the model call that would pass it: budgetExceeded, stopReason budget_exceeded", async () => {
    const session = await createSession();
    await setBudget(session, 100);
    await script(
      session,
      { toolCalls: [{ id: "t1", name: "getTime", arguments: {} }], usage: { prompt_tokens: 80, completion_tokens: 40 } },
      { text: "must never be asked for" },
    );
    const events = await openEvents(session);
    await send(session, "what time is it?");
    const seen = await events.until("runEnd");
    await events.cancel();
    expect(seen.find((e) => e.event === "budgetExceeded")?.json).toMatchObject({ scope: "session", limit: 100, used: 120 });
    expect(seen.at(-1)?.json).toMatchObject({ type: "runEnd", stopReason: "budget_exceeded" });
    expect(await llmRequests(session)).toHaveLength(1);
  });

  it("lets the operator raise a spent budget, and only the operator", async () => {
    const session = await createSession();
    await setBudget(session, 10);
    await script(session, { text: "one", usage: { prompt_tokens: 10, completion_tokens: 5 } }, { text: "two" });
    await send(session, "hi");
    await nextResponse(session);
    expect((await send(session, "more")).status).toBe(429);
    expect((await setBudget(session, 1_000, "not-the-token")).status).toBe(403);
    expect((await setBudget(session, 1_000)).status).toBe(200);
    expect((await send(session, "more")).status).toBe(202);
    expect(await nextResponse(session)).toMatchObject({ content: [{ type: "text", text: "two" }] });
  });

  it("refuses a schedule's fire into a spent budget with the event, queues nothing, and keeps the schedule", async () => {
    const session = await createSession();
    await setBudget(session, 10);
    await script(session, { text: "spent", usage: { prompt_tokens: 10, completion_tokens: 5 } });
    await send(session, "hi");
    await nextResponse(session);
    const before = await snapshotOf(session);
    const events = await openEvents(session, before.lastEventSeq);
    const { id, nextRunAt } = await session.handle.schedule({ message: "tick", everyMs: 300 });
    const seen = await events.until("scheduleRefused");
    await events.cancel();
    expect(seen.map((e) => e.event)).not.toContain("scheduleFired");
    const refused = seen.at(-1)!.json as unknown as { scheduleId: string; nextRunAt: number; budget: unknown };
    expect(refused).toMatchObject({ scheduleId: id, budget: { scope: "session", limit: 10, used: 15 } });
    expect(refused.nextRunAt).toBeGreaterThan(nextRunAt);
    await sleep(50);
    const [kept] = (await session.handle.schedules()).schedules;
    expect(kept).toMatchObject({ id, runs: 0 });
    // Nothing reached the history or the model.
    expect((await snapshotOf(session)).messages).toHaveLength(before.messages.length);
    expect(await llmRequests(session)).toHaveLength(1);
    await session.handle.cancelSchedule(id);
  });
});
