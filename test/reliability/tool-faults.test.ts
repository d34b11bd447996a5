import { describe, expect, it } from "vitest";
import { createSession, llmRequests, nextResponse, openEvents, script, send } from "../session/support.ts";
import { expectEveryToolCallAnswered, snapshotOf } from "./support.ts";
import { sleep } from "../support/time.ts";

async function runOneTool(name: string, args: Record<string, unknown> = {}) {
  const s = await createSession();
  await script(s, { toolCalls: [{ id: "f1", name, arguments: args }] }, { text: "ok" });
  const events = await openEvents(s);
  await send(s, "go");
  const seen = await events.until("runEnd");
  await events.cancel();
  const end = seen.find((e) => e.event === "toolExecEnd")!;
  const toolMessage = (await llmRequests(s))[1]!.body.messages.find((m) => m.role === "tool")!;
  expectEveryToolCallAnswered((await snapshotOf(s)).messages);
  return { s, seen, end, toolText: String(toolMessage.content) };
}

describe("tool faults", () => {
  it("turns a throw into an error result carrying the message", async () => {
    const { end, toolText } = await runOneTool("boom");
    expect(end.json.isError).toBe(true);
    expect(toolText).toContain("boom went the tool");
  });

  it("times out a hanging tool that ignores its signal", async () => {
    const { end, toolText } = await runOneTool("hangs");
    expect(end.json.isError).toBe(true);
    expect(toolText).toContain("timed out after 200 ms");
  });

  it("rejects a malformed result instead of storing it", async () => {
    const { end, toolText } = await runOneTool("malformed");
    expect(end.json.isError).toBe(true);
    expect(toolText).toContain("no content array");
  });

  it("drops partial results reported after the tool returned", async () => {
    const { seen } = await runOneTool("lateUpdates");
    const forCall = seen.filter((e) => e.json.toolCallId === "f1").map((e) => e.event);
    expect(forCall).toEqual(["toolExecStart", "toolExecUpdate", "toolExecEnd"]);
    await sleep(50);
  });

  it("truncates huge output with a note before it is stored or sent to the model", async () => {
    const { toolText, s } = await runOneTool("hugeOutput", { chars: 300_000 });
    expect(toolText.length).toBeLessThan(101_000);
    expect(toolText).toContain("[output truncated: 300000 characters, limit 100000]");
    const stored = (await snapshotOf(s)).messages.find((m) => m.role === "toolResult")!;
    expect(JSON.stringify(stored).length).toBeLessThan(101_000 + 1_000);
  });
});

describe("load", () => {
  it("accepts 16 messages posted at once, each seen by the model exactly once", async () => {
    const s = await createSession();
    await script(s, { text: "busy", delayMs: 500 }, { text: "all read" });
    const events = await openEvents(s);
    await send(s, "first");
    await events.until("messageStart");
    const sent = Array.from({ length: 16 }, (_, i) => `m${i}`);
    const posts = await Promise.all(sent.map((text) => send(s, text)));
    expect(posts.map((r) => r.status)).toEqual(Array(16).fill(202));
    const refused = await send(s, "m16");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    await nextResponse(s);
    await nextResponse(s);
    const requests = await llmRequests(s);
    expect(requests).toHaveLength(2);
    // Concurrent posts have no order between them; each must reach the model once, after "first".
    const userTexts = requests[1]!.body.messages.filter((m) => m.role === "user").map((m) => String(m.content));
    expect(userTexts[0]).toBe("first");
    expect([...userTexts.slice(1)].sort()).toEqual([...sent].sort());
    await events.cancel();
  });

  it("keeps the order of messages posted one after another", async () => {
    const s = await createSession();
    // The first answer takes long enough for all five posts to land while it runs, even on a loaded machine.
    await script(s, { text: "busy", delayMs: 2_000 }, { text: "read in order" });
    const events = await openEvents(s);
    await send(s, "first");
    await events.until("messageStart");
    for (let i = 0; i < 5; i++) expect((await send(s, `n${i}`)).status).toBe(202);
    await nextResponse(s);
    await nextResponse(s);
    const userTexts = (await llmRequests(s))[1]!.body.messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(userTexts).toEqual(["first", "n0", "n1", "n2", "n3", "n4"]);
    await events.cancel();
  });

  it("does not stall the agent for a subscriber that never reads", async () => {
    const s = await createSession();
    await script(s, { toolCalls: [{ id: "c1", name: "chatty", arguments: { count: 8_000 } }] }, { text: "streamed" });
    const stalled = await openEvents(s); // never read
    await send(s, "flood");
    expect((await nextResponse(s, 15_000)).content).toEqual([{ type: "text", text: "streamed" }]);
    await stalled.cancel();
  });

  it("keeps many concurrent sessions apart", async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, () => createSession()));
    await Promise.all(
      sessions.map((s, i) =>
        script(s, { toolCalls: [{ id: `c${i}`, name: "slowEcho", arguments: { text: `session ${i}`, ms: 20 } }] }, { text: `answer ${i}` }),
      ),
    );
    await Promise.all(sessions.map((s, i) => send(s, `question ${i}`)));
    const answers = await Promise.all(sessions.map((s) => nextResponse(s)));
    answers.forEach((a, i) => expect(a.content).toEqual([{ type: "text", text: `answer ${i}` }]));
    const snapshots = await Promise.all(sessions.map((s) => snapshotOf(s)));
    snapshots.forEach((snap, i) => {
      const result = snap.messages.find((m) => m.role === "toolResult")!;
      expect(result.content[0]!.text).toBe(`echo: session ${i}`);
    });
  });
});

describe("event retention", () => {
  it("tells a client asking for trimmed events that they were dropped, then replays what is kept", async () => {
    const s = await createSession();
    await script(s, { toolCalls: [{ id: "c1", name: "chatty", arguments: { count: 6_000 } }] }, { text: "long run" });
    await send(s, "flood");
    await nextResponse(s, 15_000);
    const replay = await openEvents(s, 1);
    const first = (await replay.next())!;
    expect(first.event).toBe("eventsDropped");
    expect(first.id).toBeUndefined();
    expect(first.json).toMatchObject({ type: "eventsDropped", sessionId: s.id });
    const oldest = Number(first.json.oldestSeq);
    expect(oldest).toBeGreaterThan(2);
    expect(Number((await replay.next())!.id)).toBe(oldest);
    await replay.cancel();
  });
});
