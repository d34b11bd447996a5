/**
 * Restarts at every point of a sub-agent call: before the child starts, while it runs, and after it
 * ended but before the parent heard. abortAllDurableObjects() kills parent and child alike (storage
 * kept); an alarm wakes the one a test names. Each case ends with one child, one task, one result.
 */
import { abortAllDurableObjects, env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  api,
  createSession,
  llmRequests,
  openEvents,
  script,
  send,
  snapshotOf,
  type SseReader,
  type TestSession,
} from "../session/support.ts";
import { childEvents, readChild, waitFor } from "./support.ts";

const stubOf = (id: string) => env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(id));

/** Kills every object as a crash would, then wakes only the sessions named (their alarms fire). */
async function restartThenWake(...ids: string[]): Promise<void> {
  await abortAllDurableObjects();
  for (const id of ids) await runDurableObjectAlarm(stubOf(id));
}

/** A parent whose call `d1` of `helper` is scripted, and a child script for the task. */
async function delegation(childReplies: Parameters<typeof script>[1][], parentOptions = {}) {
  const parent = await createSession(parentOptions);
  const child = { scriptId: crypto.randomUUID() } as TestSession;
  await script(
    parent,
    { toolCalls: [{ id: "d1", name: "helper", arguments: { task: `work [script:${child.scriptId}]` } }] },
    { text: "parent done" },
  );
  await script(child, ...childReplies);
  return { parent, child };
}

/** Reads events until one relayed from the child satisfies `match`; returns everything read and that child id. */
async function untilChild(events: SseReader, match: (type: string) => boolean): Promise<{ seen: number; sessionId: string }> {
  for (;;) {
    const next = await events.next();
    if (!next) throw new Error("stream ended");
    const relayed = childEvents([next])[0];
    if (relayed && match(relayed.event.type)) return { seen: Number(next.id), sessionId: relayed.sessionId };
  }
}

/** After the parent's run: one helper result with `text`, one child (the given one) holding one task. */
async function expectOneChildAnswered(parent: TestSession, resumed: SseReader, text: string, childId?: string): Promise<string> {
  const after = await resumed.until("runEnd");
  await resumed.cancel();
  const ids = new Set(childEvents(after).map((r) => r.sessionId));
  if (childId) ids.add(childId);
  expect(ids.size).toBe(1);
  const sessionId = [...ids][0]!;
  const end = after.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === "d1")!;
  expect(end.json).toMatchObject({ isError: false, result: { content: [{ text }], details: { sessionId } } });
  const results = (await snapshotOf(parent)).messages.filter((m) => m.role === "toolResult");
  expect(results).toHaveLength(1);
  const child = await readChild(sessionId, parent);
  expect(child.messages.filter((m) => m.role === "user")).toHaveLength(1);
  return sessionId;
}

describe("sub-agent restarts", () => {
  it("starts the child once when the parent restarts before the child started", async () => {
    const { parent, child } = await delegation([{ text: "child answer" }], { requireApproval: ["helper"] });
    const events = await openEvents(parent);
    await send(parent, "delegate");
    const before = await events.until("toolApprovalRequired");
    expect(await llmRequests(child)).toHaveLength(0);
    await restartThenWake(parent.id);
    const resumed = await openEvents(parent, Number(before.at(-1)!.id));
    expect(
      (await api(`/v1/sessions/${parent.id}/tool-calls/d1/approval`, { method: "POST", key: parent.key, json: { approve: true } })).status,
    ).toBe(200);
    await expectOneChildAnswered(parent, resumed, "child answer");
    expect(await llmRequests(child)).toHaveLength(1);
  });

  it("re-attaches to the running child after a restart instead of starting another", async () => {
    const { parent, child } = await delegation([{ text: "lost to the restart", delayMs: 3_000 }, { text: "child after restart" }]);
    const events = await openEvents(parent);
    await send(parent, "delegate");
    const { seen, sessionId } = await untilChild(events, (type) => type === "runStart");
    await waitFor(async () => (await llmRequests(child)).length === 1); // the child's LLM call is in flight
    await restartThenWake(parent.id);
    const resumed = await openEvents(parent, seen);
    await expectOneChildAnswered(parent, resumed, "child after restart", sessionId);
    // The relay went on where it stopped: the parent's log holds every child event once, in order.
    const log = await openEvents(parent, 0);
    const relayed = childEvents(await log.until("runEnd"));
    await log.cancel();
    const seqs = relayed.map((r) => r.event.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(relayed.filter((r) => r.event.type === "runEnd")).toHaveLength(1);
    // The child's usage joins the parent's once, though the call ran twice.
    const snapshot = await snapshotOf(parent);
    const stored = snapshot.messages as unknown as { usage?: { totalTokens: number } }[];
    const childTotal = (snapshot.messages.find((m) => m.role === "toolResult") as unknown as { usage: { totalTokens: number } }).usage
      .totalTokens;
    expect(childTotal).toBeGreaterThan(0);
    expect((snapshot.usage as { totalTokens: number }).totalTokens).toBe(stored.reduce((sum, m) => sum + (m.usage?.totalTokens ?? 0), 0));
  });

  it("hands back the stored answer of a child that finished while the parent was gone", async () => {
    const { parent, child } = await delegation([{ text: "lost to the restart", delayMs: 3_000 }, { text: "finished alone" }]);
    const events = await openEvents(parent);
    await send(parent, "delegate");
    const { seen, sessionId } = await untilChild(events, (type) => type === "runStart");
    await waitFor(async () => (await llmRequests(child)).length === 1);
    // Only the child wakes: it resumes and ends its run while the parent is down.
    await restartThenWake(sessionId);
    await waitFor(
      async () => (await readChild(sessionId, parent)).status === "idle" && (await readChild(sessionId, parent)).messages.length === 2,
    );
    expect((await snapshotOf(parent)).messages.filter((m) => m.role === "toolResult")).toHaveLength(0);
    await runDurableObjectAlarm(stubOf(parent.id));
    const resumed = await openEvents(parent, seen);
    await expectOneChildAnswered(parent, resumed, "finished alone", sessionId);
    expect(await llmRequests(child)).toHaveLength(2);
  });

  it("counts the child's usage once when the parent restarts after the result was stored", async () => {
    const parent = await createSession();
    const child = { scriptId: crypto.randomUUID() } as TestSession;
    await script(
      parent,
      { toolCalls: [{ id: "d1", name: "helper", arguments: { task: `work [script:${child.scriptId}]` } }] },
      { text: "lost", delayMs: 3_000 },
      { text: "parent after restart" },
    );
    await script(child, { text: "child answer", usage: { prompt_tokens: 100, completion_tokens: 10 } });
    const events = await openEvents(parent);
    await send(parent, "delegate");
    const before = await events.until("toolExecEnd");
    await waitFor(async () => (await llmRequests(parent)).length === 2); // the parent's last LLM call is in flight
    await restartThenWake(parent.id);
    const resumed = await openEvents(parent, Number(before.at(-1)!.id));
    await resumed.until("runEnd");
    await resumed.cancel();
    const snapshot = await snapshotOf(parent);
    const stored = snapshot.messages as unknown as { role: string; usage?: { totalTokens: number } }[];
    expect(stored.find((m) => m.role === "toolResult")?.usage?.totalTokens).toBe(110);
    expect((snapshot.usage as { totalTokens: number }).totalTokens).toBe(stored.reduce((sum, m) => sum + (m.usage?.totalTokens ?? 0), 0));
  });
});
