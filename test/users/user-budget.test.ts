/**
 * A user's daily token budget (USER_DAILY_TOKEN_BUDGET = 100000 in this project) in workerd: one count for
 * all of a user's sessions, kept by their UserStore, seen by a concurrent session at its next model call;
 * the 429 with Retry-After for new input; the snapshot's budget; another user untouched.
 */
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { MockReply } from "../../support/mock-openai-server.ts";
import { type SseEvent, SseReader } from "../support/sse-reader.ts";
import { call, createWith, tokenFor } from "./support.ts";

const LIMIT = 100_000;
const user = () => `user-${crypto.randomUUID()}`;

type Scripted = { id: string; key: string; scriptId: string };

async function scriptedSession(token: string): Promise<Scripted> {
  const scriptId = crypto.randomUUID();
  return { ...(await createWith(token, { systemPrompt: `Test agent [script:${scriptId}]` })), scriptId };
}

async function script(s: Scripted, ...replies: MockReply[]): Promise<void> {
  const res = await fetch(`${inject("controlUrl")}/scripts/${s.scriptId}`, { method: "POST", body: JSON.stringify(replies) });
  expect(res.ok).toBe(true);
}

async function requests(s: Scripted): Promise<{ body: { max_tokens?: number } }[]> {
  return (await fetch(`${inject("controlUrl")}/scripts/${s.scriptId}/requests`)).json();
}

const send = (s: Scripted, token: string, content: string) =>
  call(`/v1/sessions/${s.id}/messages`, { method: "POST", token, json: { content } });

async function answer(s: Scripted, token: string): Promise<{ stopReason?: string }> {
  const res = await call(`/v1/sessions/${s.id}/responses/next?waitMs=10000`, { token });
  expect(res.status).toBe(200);
  return res.json();
}

async function snapshot(s: Scripted, token: string) {
  return (await (await call(`/v1/sessions/${s.id}`, { token })).json()) as {
    usage: { budget: { scope: string; limit: number; used: number } | null };
  };
}

/** The session's events from the start until its first `type` (the log replayed, then live). */
async function eventsUntil(s: Scripted, token: string, type: string): Promise<SseEvent[]> {
  const res = await call(`/v1/sessions/${s.id}/events?lastEventId=0`, { token });
  expect(res.status).toBe(200);
  const reader = new SseReader(res);
  try {
    return await reader.until(type);
  } finally {
    await reader.cancel();
  }
}

describe("a user's daily token budget", () => {
  it("is one count for all of the user's sessions: a concurrent session stops at its next model call", async () => {
    const token = await tokenFor(user());
    const first = await scriptedSession(token);
    const second = await scriptedSession(token);
    // The second session's run calls a tool, so it asks the model twice; the first spends in between.
    await script(second, {
      toolCalls: [{ id: "t1", name: "getTime", arguments: {} }],
      usage: { prompt_tokens: 20_000, completion_tokens: 10_000 },
    } as MockReply);
    await script(first, { text: "spent", usage: { prompt_tokens: 50_000, completion_tokens: 25_000 } } as MockReply);

    expect((await send(first, token, "spend")).status).toBe(202);
    await answer(first, token);
    expect((await snapshot(second, token)).usage.budget).toEqual({ scope: "user", limit: LIMIT, used: 75_000 });

    expect((await send(second, token, "what time is it?")).status).toBe(202);
    expect(await answer(second, token)).toMatchObject({ stopReason: "budget_exceeded" });
    // Its one model call was capped to what the user had left; the second was never made.
    expect((await requests(second)).map((r) => r.body.max_tokens)).toEqual([LIMIT - 75_000]);
    const exceeded = (await eventsUntil(second, token, "runEnd")).find((e) => e.event === "budgetExceeded");
    expect(exceeded?.json).toMatchObject({ scope: "user", limit: LIMIT, used: 105_000 });
    expect((await snapshot(first, token)).usage.budget).toEqual({ scope: "user", limit: LIMIT, used: 105_000 });
  });

  it("refuses new input once spent with 429 and a Retry-After until the next UTC day; another user is untouched", async () => {
    const token = await tokenFor(user());
    const s = await scriptedSession(token);
    await script(s, { text: "spent", usage: { prompt_tokens: 90_000, completion_tokens: 20_000 } } as MockReply);
    expect((await send(s, token, "spend it all")).status).toBe(202);
    await answer(s, token);

    const later = await scriptedSession(token);
    const refused = await send(later, token, "more");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "budget_exceeded",
      message: expect.stringContaining("USER_DAILY_TOKEN_BUDGET"),
    });
    const retryAfter = Number(refused.headers.get("retry-after"));
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - (midnight.getTime() - Date.now()) / 1000)).toBeLessThan(5);
    expect(await requests(later)).toHaveLength(0);

    const other = await tokenFor(user());
    const theirs = await scriptedSession(other);
    await script(theirs, { text: "fine" } as MockReply);
    expect((await send(theirs, other, "hello")).status).toBe(202);
    expect((await snapshot(theirs, other)).usage.budget).toMatchObject({ scope: "user", limit: LIMIT });
  });

  it("refuses a schedule that comes due once the day's budget is spent, and keeps it", async () => {
    const token = await tokenFor(user());
    const s = await scriptedSession(token);
    await script(s, { text: "spent", usage: { prompt_tokens: 100_000, completion_tokens: 1 } } as MockReply);
    expect((await send(s, token, "spend it all")).status).toBe(202);
    await answer(s, token);
    const created = await call(`/v1/sessions/${s.id}/schedules`, { method: "POST", token, json: { message: "tick", everyMs: 300 } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const seen = await eventsUntil(s, token, "scheduleRefused");
    expect(seen.at(-1)?.json).toMatchObject({ scheduleId: id, budget: { scope: "user", limit: LIMIT, used: 100_001 } });
    expect(seen.map((e) => e.event)).not.toContain("scheduleFired");
    const listed = (await (await call(`/v1/sessions/${s.id}/schedules`, { token })).json()) as {
      schedules: { id: string; runs: number }[];
    };
    expect(listed.schedules).toEqual([expect.objectContaining({ id, runs: 0 })]);
    await call(`/v1/sessions/${s.id}/schedules/${id}`, { method: "DELETE", token });
  });
});
