/**
 * Sub-agents end to end in workerd: a parent session's call of a fixture sub-agent runs a child session
 * (its own Durable Object, scripted through the task's marker), streams the child's events into the
 * parent's, answers the child's final text, adds its usage, passes aborts and approvals down, bounds the
 * nesting and erases the child with the parent.
 */
import { describe, expect, it } from "vitest";
import { SESSION_ID_PATTERN } from "../../src/signing/session-ids.ts";
import {
  api,
  createSession,
  llmRequests,
  openEvents,
  script,
  send,
  setBudget,
  snapshotOf,
  type SseEvent,
  type TestSession,
} from "../session/support.ts";
import { childEvents, childSnapshot, readChild, waitFor } from "./support.ts";

/** A script id for a child: the marker goes into the task text. */
const childScript = (): { id: string; marker: string } => {
  const id = crypto.randomUUID();
  return { id, marker: `[script:${id}]` };
};

const scriptChild = (id: string, ...replies: Parameters<typeof script>[1][]) => script({ scriptId: id } as TestSession, ...replies);

/** One parent run that calls sub-agent `name` once (call `callId`), the child answering `childReplies`; its events and the child's id. */
async function delegateOnce(
  parent: TestSession,
  name: string,
  callId: string,
  childReplies: Parameters<typeof script>[1][],
): Promise<{ all: SseEvent[]; sessionId: string }> {
  const child = childScript();
  await script(parent, { toolCalls: [{ id: callId, name, arguments: { task: `do it ${child.marker}` } }] }, { text: "parent done" });
  await scriptChild(child.id, ...childReplies);
  const events = await openEvents(parent);
  await send(parent, "delegate");
  const all = await events.until("runEnd");
  await events.cancel();
  return { all, sessionId: childEvents(all)[0]!.sessionId };
}

describe("sub-agents", () => {
  it("runs the child on the task, relays its events and answers its final text with sessionId, stopReason and usage", async () => {
    const parent = await createSession();
    const child = childScript();
    await script(
      parent,
      {
        toolCalls: [{ id: "d1", name: "helper", arguments: { task: `echo hello ${child.marker}` } }],
        usage: { prompt_tokens: 10, completion_tokens: 2 },
      },
      { text: "parent done", usage: { prompt_tokens: 20, completion_tokens: 3 } },
    );
    await scriptChild(
      child.id,
      {
        toolCalls: [{ id: "e1", name: "slowEcho", arguments: { text: "hello", ms: 30 } }],
        usage: { prompt_tokens: 5, completion_tokens: 1 },
      },
      { text: "child says hello", usage: { prompt_tokens: 7, completion_tokens: 2 } },
    );
    const events = await openEvents(parent);
    await send(parent, "delegate");
    const all = await events.until("runEnd");
    await events.cancel();

    const relayed = childEvents(all);
    const sessionId = relayed[0]!.sessionId;
    expect(sessionId).toMatch(SESSION_ID_PATTERN); // signed: the router lets the parent's key read it (below)
    expect(new Set(relayed.map((r) => r.sessionId))).toEqual(new Set([sessionId]));
    const types = relayed.map((r) => r.event.type);
    expect(types[0]).toBe("runStart");
    expect(types.at(-1)).toBe("runEnd");
    expect(types).toContain("toolExecStart");
    expect(types).toContain("toolExecEnd");
    const seqs = relayed.map((r) => r.event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);

    const end = all.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === "d1")!;
    const childUsage = { inputTokens: 12, outputTokens: 3, totalTokens: 15 };
    expect(end.json).toMatchObject({
      isError: false,
      result: { content: [{ type: "text", text: "child says hello" }], details: { sessionId, stopReason: "stop", usage: childUsage } },
    });
    // Updates come before the call's end, never after it.
    const endIndex = all.indexOf(end);
    expect(all.slice(endIndex).some((e) => e.event === "toolExecUpdate" && e.json.toolCallId === "d1")).toBe(false);

    const snapshot = await snapshotOf(parent);
    expect(snapshot.usage).toEqual({ inputTokens: 30 + 12, outputTokens: 5 + 3, totalTokens: 35 + 15, budget: null });
    const childView = await readChild(sessionId, parent);
    expect(childView.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(childView.messages[0]!.content[0]!.text).toContain("echo hello");
    expect(childView.tools).toEqual(expect.arrayContaining(["slowEcho", "countedWork", "getTime", "listTools"]));
    expect(childView.tools).not.toContain("helper");
    expect(childView.subAgent).toEqual({ parentId: parent.id, toolCallId: "d1", depth: 1 });
    expect(snapshot.subAgent).toBeUndefined();
    // The child used its own system prompt, not the parent's.
    const childRequest = (await llmRequests({ scriptId: child.id } as TestSession))[0]!;
    expect(childRequest.body.messages[0]).toMatchObject({ role: "system", content: expect.stringContaining("helper sub-agent") });
  });

  it("holds the child to what is left of the parent's token budget while it runs", async () => {
    const parent = await createSession();
    expect((await setBudget(parent, 100)).status).toBe(200);
    const child = childScript();
    await script(
      parent,
      {
        toolCalls: [{ id: "b1", name: "helper", arguments: { task: `work ${child.marker}` } }],
        usage: { prompt_tokens: 30, completion_tokens: 10 },
      },
      { text: "must never be asked for" },
    );
    await scriptChild(
      child.id,
      { toolCalls: [{ id: "w1", name: "slowEcho", arguments: { text: "a", ms: 1 } }], usage: { prompt_tokens: 50, completion_tokens: 20 } },
      { text: "must never be asked for either" },
    );
    const events = await openEvents(parent);
    await send(parent, "delegate");
    const all = await events.until("runEnd");
    await events.cancel();

    // The child had the 60 tokens the parent had left: its one call was capped to them, its second never made.
    const childRequests = (await llmRequests({ scriptId: child.id } as TestSession)) as unknown as { body: { max_tokens?: number } }[];
    expect(childRequests.map((r) => r.body.max_tokens)).toEqual([60]);
    const childEnd = childEvents(all).find((r) => r.event.type === "runEnd");
    expect(childEnd?.event).toMatchObject({ stopReason: "budget_exceeded" });
    const childView = await readChild(childEvents(all)[0]!.sessionId, parent);
    expect(childView.usage).toMatchObject({ budget: { scope: "session", limit: 60, used: 70 } });
    // Back in the parent, the child's 70 tokens count too: spent, it stops before its next call.
    expect(all.find((e) => e.event === "budgetExceeded")?.json).toMatchObject({ scope: "session", limit: 100, used: 110 });
    expect(all.at(-1)?.json).toMatchObject({ type: "runEnd", stopReason: "budget_exceeded" });
    expect(await llmRequests(parent)).toHaveLength(1);
  });

  it("lets only the parent's key read the child, and takes the child's input from the parent alone", async () => {
    const parent = await createSession();
    const other = await createSession();
    const { sessionId } = await delegateOnce(parent, "helper", "d1", [{ text: "child answer" }]);

    expect((await childSnapshot(sessionId, parent.key)).status).toBe(200);
    expect((await childSnapshot(sessionId, other.key)).status).toBe(404);
    expect((await childSnapshot(sessionId)).status).toBe(404);
    const write = await api(`/v1/sessions/${sessionId}/messages`, { method: "POST", key: parent.key, json: { content: "hi" } });
    expect(write.status).toBe(409);
    expect(((await write.json()) as { error: { message: string } }).error.message).toContain("parent");
    // A call of another session derives another child: the same call id does not collide.
    expect((await delegateOnce(other, "helper", "d1", [{ text: "second child" }])).sessionId).not.toBe(sessionId);
  });

  it("aborts the child when the parent's run is aborted", async () => {
    const parent = await createSession();
    const child = childScript();
    await script(
      parent,
      { toolCalls: [{ id: "d1", name: "helper", arguments: { task: `slow ${child.marker}` } }] },
      { text: "after abort" },
    );
    await scriptChild(child.id, { toolCalls: [{ id: "w1", name: "slowEcho", arguments: { text: "x", ms: 6_000 } }] }, { text: "never" });
    const events = await openEvents(parent);
    await send(parent, "delegate");
    let sessionId = "";
    while (!sessionId) {
      const next = await events.next();
      const relayed = next ? childEvents([next])[0] : undefined;
      if (relayed?.event.type === "toolExecStart") sessionId = relayed.sessionId;
    }
    expect((await api(`/v1/sessions/${parent.id}/abort`, { method: "POST", key: parent.key })).status).toBe(202);
    await events.until("runEnd");
    await events.cancel();
    await waitFor(async () => (await readChild(sessionId, parent)).status === "idle");
    const childView = await readChild(sessionId, parent);
    expect(childView.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  it("surfaces the child's approvals in the parent's stream and takes the answer through the parent's route", async () => {
    const parent = await createSession({ requireApproval: ["slowEcho"] });
    const child = childScript();
    await script(
      parent,
      { toolCalls: [{ id: "d1", name: "helper", arguments: { task: `echo ${child.marker}` } }] },
      { text: "parent done" },
    );
    await scriptChild(
      child.id,
      { toolCalls: [{ id: "e1", name: "slowEcho", arguments: { text: "approved work", ms: 10 } }] },
      { text: "child finished" },
    );
    const events = await openEvents(parent);
    await send(parent, "delegate");
    let approval: Record<string, unknown> | undefined;
    while (!approval) {
      const next = await events.next();
      const relayed = next ? childEvents([next])[0] : undefined;
      if (relayed?.event.type === "toolApprovalRequired") approval = relayed.event;
    }
    expect(approval).toMatchObject({ toolCallId: "e1", toolName: "slowEcho" });
    const answer = await api(`/v1/sessions/${parent.id}/tool-calls/e1/approval`, {
      method: "POST",
      key: parent.key,
      json: { approve: true },
    });
    expect(answer.status).toBe(200);
    const rest = await events.until("runEnd");
    await events.cancel();
    const end = rest.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === "d1")!;
    expect(end.json).toMatchObject({ isError: false, result: { content: [{ text: "child finished" }] } });
    const echoed = childEvents(rest).find((r) => r.event.type === "toolExecEnd")!;
    expect(JSON.stringify(echoed.event.result)).toContain("echo: approved work");
    // An id neither the parent nor a live child waits on is still unknown.
    expect(
      (await api(`/v1/sessions/${parent.id}/tool-calls/e1/approval`, { method: "POST", key: parent.key, json: { approve: true } })).status,
    ).toBe(404);
  });

  it("bounds nesting by MAX_SUBAGENT_DEPTH: a child at the limit is offered no sub-agents", async () => {
    const parent = await createSession();
    const first = childScript();
    const second = childScript();
    await script(
      parent,
      { toolCalls: [{ id: "n1", name: "deep", arguments: { task: `level one ${first.marker}` } }] },
      { text: "top done" },
    );
    await scriptChild(
      first.id,
      { toolCalls: [{ id: "n2", name: "deep", arguments: { task: `level two ${second.marker}` } }] },
      { text: "one done" },
    );
    await scriptChild(second.id, { text: "two done" });
    const events = await openEvents(parent);
    await send(parent, "nest");
    const all = await events.until("runEnd");
    await events.cancel();
    const relayed = childEvents(all);
    const firstId = relayed[0]!.sessionId;
    // The grandchild's events reach the top as updates of the child's own call, nested one level deeper.
    const nested = relayed
      .filter((r) => r.event.type === "toolExecUpdate")
      .map((r) => (r.event.partialResult as { subAgent?: { sessionId: string } }).subAgent)
      .filter((s) => s !== undefined);
    const secondId = nested[0]!.sessionId;
    expect(secondId).not.toBe(firstId);
    expect((await readChild(firstId, parent)).tools).toContain("deep");
    expect((await readChild(secondId, parent)).tools).not.toContain("deep");
    expect((await readChild(secondId, parent)).tools).toContain("slowEcho");
    const end = all.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === "n1")!;
    expect(end.json).toMatchObject({ result: { content: [{ text: "one done" }] } });
  });

  it("gives a sub-agent without a tool list every tool but sub-agents", async () => {
    const parent = await createSession();
    const { sessionId } = await delegateOnce(parent, "generalist", "g1", [{ text: "general answer" }]);
    const tools = (await readChild(sessionId, parent)).tools;
    expect(tools).toEqual(expect.arrayContaining(["getTime", "getWeather", "slowEcho", "countedWork"]));
    for (const subAgent of ["helper", "deep", "generalist", "researcher"]) expect(tools).not.toContain(subAgent);
  });

  it("never gives the child a tool the parent session may not use", async () => {
    const parent = await createSession({ tools: ["helper", "slowEcho"] });
    const { sessionId } = await delegateOnce(parent, "helper", "d1", [{ text: "narrow answer" }]);
    expect((await readChild(sessionId, parent)).tools.sort()).toEqual(["listTools", "slowEcho"]);
  });

  it("fails a call whose sub-agent names an unknown tool, naming it, and starts no child", async () => {
    const parent = await createSession();
    await script(parent, { toolCalls: [{ id: "m1", name: "misnamed", arguments: { task: "anything" } }] }, { text: "noted" });
    const events = await openEvents(parent);
    await send(parent, "delegate");
    const all = await events.until("runEnd");
    await events.cancel();
    expect(childEvents(all)).toEqual([]);
    const end = all.find((e) => e.event === "toolExecEnd")!;
    expect(end.json).toMatchObject({ toolCallId: "m1", isError: true });
    expect(JSON.stringify(end.json.result)).toContain("noSuchTool");
  });

  it("erases the children when the parent is deleted", async () => {
    const parent = await createSession();
    const { sessionId } = await delegateOnce(parent, "helper", "d1", [{ text: "child answer" }]);
    expect((await childSnapshot(sessionId, parent.key)).status).toBe(200);
    expect((await api(`/v1/sessions/${parent.id}`, { method: "DELETE", key: parent.key })).status).toBe(200);
    expect((await childSnapshot(sessionId, parent.key)).status).toBe(410);
  });
});
