/**
 * Restarts mid-run. abortAllDurableObjects() resets every object in this Worker, so these tests live in
 * their own vitest project ("workers-restarts") where no other file's sessions can be hit.
 */
import { abortAllDurableObjects, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  api,
  createSession,
  llmRequests,
  nextResponse,
  openEvents,
  script,
  send,
  snapshotOf,
  type TestSession,
  stubOf,
} from "./support.ts";
import { sleep } from "../support/time.ts";
import { interruptDelete, leaveCarriedInput, leavePendingInput, recordAbortRequest } from "./crash-states.ts";

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(20);
  }
}

/** Kills the object as a crash would (in-memory state and open streams gone, storage kept), then fires its alarm. */
async function restartSessionObject(session: TestSession): Promise<void> {
  await abortAllDurableObjects();
  await runDurableObjectAlarm(env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id)));
}

describe("restarts", () => {
  it("resumes a run interrupted during the LLM call with nothing lost or duplicated", async () => {
    const session = await createSession();
    await script(session, { text: "never delivered", delayMs: 3_000 }, { text: "answer after restart" });
    const events = await openEvents(session);
    await send(session, "survive this");
    const before = await events.until("messageStart");
    await waitFor(async () => (await llmRequests(session)).length === 1); // the first call is in flight
    await restartSessionObject(session);
    const resumed = await openEvents(session, Number(before.at(-1)!.id));
    const after = await resumed.until("runEnd");
    const seqs = [...before, ...after].map((e) => e.json.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(after.at(-1)!.json.response).toMatchObject({ content: [{ text: "answer after restart" }] });
    const roles = (await snapshotOf(session)).messages.map((m) => m.role);
    expect(roles).toEqual(["user", "assistant"]);
    await resumed.cancel();
  });

  it("never runs a tool twice: a call interrupted by a restart gets an error result", async () => {
    const session = await createSession();
    await script(session, { toolCalls: [{ id: "w1", name: "countedWork", arguments: { ms: 3_000 } }] }, { text: "noted the restart" });
    const events = await openEvents(session);
    await send(session, "work");
    const before = await events.until("toolExecStart");
    await sleep(200); // let the tool count itself
    await restartSessionObject(session);
    const resumed = await openEvents(session, Number(before.at(-1)!.id));
    const after = await resumed.until("runEnd");
    const end = after.find((e) => e.event === "toolExecEnd")!;
    expect(end.json).toMatchObject({ toolCallId: "w1", isError: true });
    expect(JSON.stringify(end.json.result)).toContain("restarted");
    expect(await env.TOOL_INDEX.get("test-runs:w1")).toBe("1");
    const results = (await snapshotOf(session)).messages.filter((m) => m.role === "toolResult");
    expect(results).toHaveLength(1);
    await resumed.cancel();
  });

  it("counts a run's token usage once in the session's total when a restart interrupts it", async () => {
    const session = await createSession();
    await script(
      session,
      { toolCalls: [{ id: "u1", name: "countedWork", arguments: { ms: 3_000 } }], usage: { prompt_tokens: 10, completion_tokens: 3 } },
      { text: "counted", usage: { prompt_tokens: 20, completion_tokens: 4 } },
    );
    const events = await openEvents(session);
    await send(session, "work and count");
    const before = await events.until("toolExecStart");
    await restartSessionObject(session);
    const resumed = await openEvents(session, Number(before.at(-1)!.id));
    await resumed.until("runEnd");
    const usage = ((await snapshotOf(session)) as unknown as { usage: unknown }).usage;
    expect(usage).toEqual({ inputTokens: 30, outputTokens: 7, totalTokens: 37, budget: null });
    await resumed.cancel();
  });
});

describe("approvals across restarts", () => {
  it("keeps a call waiting for approval through a restart and runs it once approved", async () => {
    const session = await createSession({ requireApproval: ["countedWork"] });
    await script(session, { toolCalls: [{ id: "ap1", name: "countedWork", arguments: { ms: 1 } }] }, { text: "approved after restart" });
    const events = await openEvents(session);
    await send(session, "needs a yes");
    const before = await events.until("toolApprovalRequired");
    await restartSessionObject(session);
    const resumed = await openEvents(session, Number(before.at(-1)!.id));
    const approve = await api(`/v1/sessions/${session.id}/tool-calls/ap1/approval`, {
      method: "POST",
      key: session.key,
      json: { approve: true },
    });
    expect(approve.status).toBe(200);
    const after = await resumed.until("runEnd");
    expect(after.filter((e) => e.event === "toolApprovalRequired")).toHaveLength(0);
    expect(after.filter((e) => e.event === "toolExecStart")).toHaveLength(0);
    expect(after.find((e) => e.event === "toolExecEnd")!.json).toMatchObject({ toolCallId: "ap1", isError: false });
    expect(await env.TOOL_INDEX.get("test-runs:ap1")).toBe("1");
    await resumed.cancel();
  });
});

describe("recovery decides from the run's own records", () => {
  it("runs a continue the restart interrupted instead of re-delivering the previous answer", async () => {
    const session = await createSession();
    await script(session, { text: "first answer" }, { text: "lost in the crash", delayMs: 3_000 }, { text: "continued after restart" });
    const events = await openEvents(session);
    await send(session, "hi");
    await events.until("runEnd");
    expect((await api(`/v1/sessions/${session.id}/continue`, { method: "POST", key: session.key })).status).toBe(202);
    await waitFor(async () => (await llmRequests(session)).length === 2);
    const last = (await events.until("messageStart")).at(-1)!;
    await restartSessionObject(session);
    const resumed = await openEvents(session, Number(last.id));
    const end = (await resumed.until("runEnd")).at(-1)!;
    expect(end.json.response).toMatchObject({ content: [{ text: "continued after restart" }] });
    expect(await llmRequests(session)).toHaveLength(3);
    await resumed.cancel();
  });

  it("starts a run on wake for input that was pending when the object stopped", async () => {
    const session = await createSession();
    await script(session, { text: "answered on wake" });
    // As if the object stopped between accepting the message and starting its run.
    await leavePendingInput(session, "are you there?");
    await restartSessionObject(session);
    const events = await openEvents(session);
    const end = (await events.until("runEnd")).at(-1)!;
    expect(end.json.response).toMatchObject({ content: [{ text: "answered on wake" }] });
    await events.cancel();
  });

  it("runs on wake a message that started its run in an idle session, once, before the run stored anything", async () => {
    const session = await createSession();
    await script(session, { text: "first answer" }, { text: "answered on wake" });
    await send(session, "hello");
    await nextResponse(session);
    // As if the object stopped right after accepting the message: the run's record carries it, nothing else is stored.
    await leaveCarriedInput(session, "still there?");
    await restartSessionObject(session);
    expect(await nextResponse(session)).toMatchObject({ content: [{ text: "answered on wake" }] });
    const messages = (await snapshotOf(session)).messages;
    expect(messages.map((m) => [m.role, m.content[0]])).toEqual([
      ["user", { type: "text", text: "hello" }],
      ["assistant", { type: "text", text: "first answer" }],
      ["user", { type: "text", text: "still there?" }],
      ["assistant", { type: "text", text: "answered on wake" }],
    ]);
    // The session is idle again, with no run left open: the next message starts a run of its own.
    expect((await snapshotOf(session)).status).toBe("idle");
  });

  it("resumes a run whose abort was asked for only to stop it, without calling the LLM again", async () => {
    const session = await createSession();
    await script(session, { text: "too late", delayMs: 3_000 }, { text: "must not be asked for" });
    const events = await openEvents(session);
    await send(session, "go");
    const before = await events.until("messageStart");
    await waitFor(async () => (await llmRequests(session)).length === 1);
    // The abort was recorded, then the object stopped before the run could end.
    await recordAbortRequest(session);
    await restartSessionObject(session);
    const resumed = await openEvents(session, Number(before.at(-1)!.id));
    const end = (await resumed.until("runEnd")).at(-1)!;
    expect(end.json.stopReason).toBe("aborted");
    expect(await llmRequests(session)).toHaveLength(1);
    await resumed.cancel();
  });

  it("finishes a DELETE the restart interrupted: the session is erased on wake and answers 410", async () => {
    const session = await createSession();
    // As if the object stopped after recording the shutdown but before erasing its storage.
    await interruptDelete(session);
    await restartSessionObject(session);
    await waitFor(async () => (await api(`/v1/sessions/${session.id}`, { key: session.key })).status === 410);
    const left = await runInDurableObject(stubOf(session), (_instance, state) =>
      state.storage.sql
        .exec<{ key: string }>("SELECT key FROM meta WHERE key != 'schema_version'")
        .toArray()
        .map((r) => r.key),
    );
    expect(left).toEqual(["tombstone"]);
  });

  it("announces the partial answer a restart cut off as abandoned before asking the LLM again", async () => {
    const session = await createSession();
    await script(session, { text: "one two three four five six seven eight", chunkDelayMs: 400 }, { text: "fresh answer" });
    const events = await openEvents(session);
    await send(session, "talk");
    const before = await events.until("messageDelta");
    await restartSessionObject(session);
    const resumed = await openEvents(session, Number(before.at(-1)!.id));
    const after = await resumed.until("runEnd");
    const types = after.map((e) => e.event);
    expect(types.indexOf("messageAbandoned")).toBeGreaterThanOrEqual(0);
    expect(types.indexOf("messageAbandoned")).toBeLessThan(types.indexOf("messageStart"));
    expect(after.at(-1)!.json.response).toMatchObject({ content: [{ text: "fresh answer" }] });
    await resumed.cancel();
  });

  describe("compaction", () => {
    /** A session on mock-model-small (window 3,000 tokens) with two long turns answered: the third compacts. */
    async function longSession(): Promise<TestSession> {
      const session = await createSession({ model: "mock-model-small", tools: [] });
      await script(
        session,
        { text: "noted one", usage: { prompt_tokens: 1_000, completion_tokens: 5 } },
        { text: "noted two", usage: { prompt_tokens: 2_000, completion_tokens: 5 } },
      );
      for (const letter of ["A", "B"]) {
        await send(session, `${letter} ${letter.repeat(4_000)}`);
        await session.handle.takeResponse(10_000);
      }
      return session;
    }

    const storedEvents = async (session: TestSession) => {
      const reader = await openEvents(session, 0);
      const events = await reader.until("runEnd");
      const all = [...events, ...(await reader.until("runEnd")), ...(await reader.until("runEnd"))];
      await reader.cancel();
      return all;
    };

    it("makes the summary again, once, when a restart interrupts the summary call", async () => {
      const session = await longSession();
      await script(
        session,
        { text: "lost summary", delayMs: 3_000, summary: true },
        { text: "The user sent A and B.", usage: { prompt_tokens: 500, completion_tokens: 20 }, summary: true },
        { text: "noted three", usage: { prompt_tokens: 1_200, completion_tokens: 5 } },
      );
      await send(session, `C ${"C".repeat(4_000)}`);
      await waitFor(async () => (await llmRequests(session)).length === 3); // the summary call is in flight
      await restartSessionObject(session);
      expect(await session.handle.takeResponse(10_000)).toMatchObject({ content: [{ text: "noted three" }] });
      const events = await storedEvents(session);
      expect(events.filter((e) => e.event === "contextCompacted")).toHaveLength(1);
      const snapshot = await snapshotOf(session);
      expect(snapshot.contextSummary).toEqual({ text: "The user sent A and B.", summarizedMessages: 4 });
      expect(snapshot.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
      // The interrupted call reported nothing; the one that finished counts once.
      expect(snapshot.usage).toEqual({ inputTokens: 4_700, outputTokens: 35, totalTokens: 4_735, budget: null });
    });

    it("keeps a stored summary through a restart and does not summarise again", async () => {
      const session = await longSession();
      await script(
        session,
        { text: "The user sent A and B.", usage: { prompt_tokens: 500, completion_tokens: 20 }, summary: true },
        { text: "never delivered", delayMs: 3_000 },
        { text: "noted three", usage: { prompt_tokens: 1_200, completion_tokens: 5 } },
      );
      await send(session, `C ${"C".repeat(4_000)}`);
      await waitFor(async () => (await llmRequests(session)).length === 4); // summary stored, the answer in flight
      await restartSessionObject(session);
      expect(await session.handle.takeResponse(10_000)).toMatchObject({ content: [{ text: "noted three" }] });
      const requests = (await llmRequests(session)) as unknown as { body: { messages: { role: string; content: unknown }[] } }[];
      expect(requests).toHaveLength(5);
      expect(JSON.stringify(requests[4]!.body.messages[1])).toContain("The user sent A and B.");
      const events = await storedEvents(session);
      expect(events.filter((e) => e.event === "contextCompacted")).toHaveLength(1);
      const snapshot = await snapshotOf(session);
      expect(snapshot.contextSummary).toEqual({ text: "The user sent A and B.", summarizedMessages: 4 });
      expect(snapshot.usage).toEqual({ inputTokens: 4_700, outputTokens: 35, totalTokens: 4_735, budget: null });
    });
  });
});
