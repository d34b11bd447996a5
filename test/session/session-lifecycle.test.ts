import { describe, expect, it } from "vitest";
import { api, createSession, llmRequests, nextResponse, openEvents, script, send, snapshotOf } from "./support.ts";

describe("queues", () => {
  it("shows a follow-up sent during a run to that run's next LLM call", async () => {
    const session = await createSession();
    await script(session, { toolCalls: [{ id: "t1", name: "slowEcho", arguments: { text: "x", ms: 300 } }] }, { text: "done" });
    const events = await openEvents(session);
    await send(session, "start");
    await events.until("toolExecStart");
    expect((await send(session, "also this", "follow-ups")).status).toBe(202);
    await events.until("runEnd");
    const requests = await llmRequests(session);
    expect(requests).toHaveLength(2);
    const roles = requests[1]!.body.messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(requests[1]!.body.messages.at(-1)!.content).toBe("also this");
    await events.cancel();
  });

  it("accepts 16 queued messages while busy and answers the 17th with 429 and Retry-After", async () => {
    const session = await createSession();
    await script(session, { text: "slow", delayMs: 1_500 });
    const events = await openEvents(session);
    await send(session, "first");
    await events.until("messageStart");
    for (let i = 0; i < 16; i++) expect((await send(session, `queued ${i}`)).status).toBe(202);
    const refused = await send(session, "one too many");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({ error: { code: "queue_full" } });
    expect((await snapshotOf(session)).queues.input).toBe(16);
    await api(`/v1/sessions/${session.id}/abort`, { method: "POST", key: session.key });
    await events.cancel();
  });

  it("gives takeResponse exactly one final message per run", async () => {
    const session = await createSession();
    await script(session, { text: "a" }, { text: "b" });
    await send(session, "one");
    expect((await nextResponse(session)).content).toEqual([{ type: "text", text: "a" }]);
    await send(session, "two");
    expect((await nextResponse(session)).content).toEqual([{ type: "text", text: "b" }]);
    const none = await api(`/v1/sessions/${session.id}/responses/next?waitMs=50`, { key: session.key });
    expect(none.status).toBe(204);
  });
});

describe("abort", () => {
  it("stops a running tool through its signal and answers every tool call", async () => {
    const session = await createSession({ toolExecution: "sequential" });
    await script(session, {
      toolCalls: [
        { id: "a1", name: "slowEcho", arguments: { text: "long", ms: 5_000 } },
        { id: "a2", name: "slowEcho", arguments: { text: "never", ms: 10 } },
      ],
    });
    const events = await openEvents(session);
    await send(session, "go");
    await events.until("toolExecStart");
    const res = await api(`/v1/sessions/${session.id}/abort`, { method: "POST", key: session.key });
    expect(res.status).toBe(202);
    const rest = await events.until("runEnd");
    expect(rest.at(-1)!.json.stopReason).toBe("aborted");
    const ends = rest.filter((e) => e.event === "toolExecEnd");
    expect(ends.map((e) => [e.json.toolCallId, e.json.isError])).toEqual([
      ["a1", true],
      ["a2", true],
    ]);
    const results = (await snapshotOf(session)).messages.filter((m) => m.role === "toolResult");
    expect(results.map((m) => m.toolCallId)).toEqual(["a1", "a2"]);
    await events.cancel();
  });

  it("ends a run waiting on the LLM with stopReason aborted", async () => {
    const session = await createSession();
    await script(session, { text: "too late", delayMs: 5_000 });
    const events = await openEvents(session);
    await send(session, "go");
    await events.until("messageStart");
    await api(`/v1/sessions/${session.id}/abort`, { method: "POST", key: session.key });
    const end = (await events.until("runEnd")).at(-1)!;
    expect(end.json.stopReason).toBe("aborted");
    expect((await nextResponse(session)).stopReason).toBe("aborted");
    await events.cancel();
  });
});

describe("approvals", () => {
  it("runs a call that needs approval once a human approves it", async () => {
    const session = await createSession({ requireApproval: ["slowEcho"] });
    await script(session, { toolCalls: [{ id: "p1", name: "slowEcho", arguments: { text: "ok", ms: 3 } }] }, { text: "approved and done" });
    const events = await openEvents(session);
    await send(session, "go");
    const asked = (await events.until("toolApprovalRequired")).at(-1)!;
    expect(asked.json).toMatchObject({ toolCallId: "p1", toolName: "slowEcho" });
    expect((await snapshotOf(session)).status).toBe("running");
    const res = await api(`/v1/sessions/${session.id}/tool-calls/p1/approval`, {
      method: "POST",
      key: session.key,
      json: { approve: true },
    });
    expect(res.status).toBe(200);
    const end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json).toMatchObject({ toolCallId: "p1", isError: false });
    await events.until("runEnd");
    await events.cancel();
  });

  it("turns a rejection into a blocked result carrying the reason", async () => {
    const session = await createSession({ requireApproval: ["*"] });
    await script(session, { toolCalls: [{ id: "r1", name: "slowEcho", arguments: { text: "no" } }] }, { text: "ok, not doing it" });
    const events = await openEvents(session);
    await send(session, "go");
    await events.until("toolApprovalRequired");
    await api(`/v1/sessions/${session.id}/tool-calls/r1/approval`, {
      method: "POST",
      key: session.key,
      json: { approve: false, reason: "not today" },
    });
    const end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json.isError).toBe(true);
    expect(JSON.stringify(end.json.result)).toContain("not today");
    const again = await api(`/v1/sessions/${session.id}/tool-calls/r1/approval`, {
      method: "POST",
      key: session.key,
      json: { approve: true },
    });
    expect(again.status).toBe(409);
    await events.until("runEnd");
    await events.cancel();
  });
});

describe("shutdown", () => {
  it("refuses new input and the snapshot with 410 after DELETE", async () => {
    const session = await createSession();
    expect((await api(`/v1/sessions/${session.id}`, { method: "DELETE", key: session.key })).status).toBe(200);
    const refused = await send(session, "hello?");
    expect(refused.status).toBe(410);
    expect(await refused.json()).toMatchObject({ error: { code: "gone" } });
    const snapshot = await api(`/v1/sessions/${session.id}`, { key: session.key });
    expect(snapshot.status).toBe(410);
  });
});

describe("continue", () => {
  it("runs the loop again on the history after a terminating tool handed off", async () => {
    const session = await createSession();
    await script(session, { toolCalls: [{ id: "h1", name: "finish", arguments: { note: "job 7" } }] }, { text: "resumed after handoff" });
    await send(session, "start the job");
    const first = await nextResponse(session);
    expect(first).toMatchObject({
      stopReason: "tool_use_terminated",
      content: [{ text: "Tool execution completed." }, { text: "handed off: job 7" }],
    });
    expect((await api(`/v1/sessions/${session.id}/continue`, { method: "POST", key: session.key })).status).toBe(202);
    expect((await nextResponse(session)).content).toEqual([{ type: "text", text: "resumed after handoff" }]);
  });
});

describe("events after shutdown", () => {
  it("sends a live stream its pending events and ends it on DELETE; reconnecting gets 410", async () => {
    const session = await createSession();
    await script(session, { text: "last words" });
    const live = await openEvents(session);
    await send(session, "hi");
    await nextResponse(session);
    await api(`/v1/sessions/${session.id}`, { method: "DELETE", key: session.key });
    const events = await live.until("runEnd");
    expect(events.at(-1)!.json.response).toMatchObject({ content: [{ text: "last words" }] });
    expect(await live.next()).toBeUndefined();
    const again = await api(`/v1/sessions/${session.id}/events`, { key: session.key, headers: { "last-event-id": events.at(-1)!.id! } });
    expect(again.status).toBe(410);
  });
});

describe("approval timeout", () => {
  it("blocks a call nobody answers once APPROVAL_TIMEOUT_MS has passed", async () => {
    const session = await createSession({ requireApproval: ["slowEcho"] });
    await script(session, { toolCalls: [{ id: "t1", name: "slowEcho", arguments: { text: "x" } }] }, { text: "nobody answered" });
    const events = await openEvents(session);
    await send(session, "go");
    await events.until("toolApprovalRequired");
    const end = (await events.until("toolExecEnd", 10_000)).at(-1)!;
    expect(end.json.isError).toBe(true);
    expect(JSON.stringify(end.json.result)).toContain("Approval timed out");
    const late = await api(`/v1/sessions/${session.id}/tool-calls/t1/approval`, {
      method: "POST",
      key: session.key,
      json: { approve: true },
    });
    expect(late.status).toBe(409);
    await events.until("runEnd");
    await events.cancel();
  });
});
