/**
 * A decision belongs to the run and the call it was asked for. A model that reuses a tool call id
 * (`call_0` every turn) gets a fresh human decision each time, also once the earlier call has left the
 * in-memory window (when the core no longer sees the id to rename it): approved or denied earlier, the
 * new call waits for a person again.
 */
import { describe, expect, it } from "vitest";
import { api, createSession, openEvents, script, send, type TestSession } from "./support.ts";

const decide = (s: TestSession, id: string, approve: boolean) =>
  api(`/v1/sessions/${s.id}/tool-calls/${id}/approval`, { method: "POST", key: s.key, json: { approve } });

/** Six user messages of 150 KB: more than the memory window of the default context budget (512K characters). */
const LONG_TURNS = 6;
const LONG_TEXT = "x".repeat(150_000);

describe.each([
  { earlier: "approved", approve: true },
  { earlier: "denied", approve: false },
])("a reused call id whose first call was $earlier", ({ approve }) => {
  it("waits for a person again once the earlier call has left memory", async () => {
    const s = await createSession({ requireApproval: ["slowEcho"] });
    await script(
      s,
      { toolCalls: [{ id: "call_0", name: "slowEcho", arguments: { text: "first" } }] },
      { text: "turn one done" },
      ...Array.from({ length: LONG_TURNS }, (_, i) => ({ text: `long turn ${i + 1} read` })),
      { toolCalls: [{ id: "call_0", name: "slowEcho", arguments: { text: "second" } }] },
      { text: "turn two done" },
    );
    const events = await openEvents(s);
    await send(s, "echo first");
    const asked = (await events.until("toolApprovalRequired")).at(-1)!;
    expect(asked.json.toolCallId).toBe("call_0");
    expect((await decide(s, "call_0", approve)).status).toBe(200);
    const first = await events.until("runEnd");
    expect(first.find((e) => e.event === "toolExecEnd")!.json.isError).toBe(!approve);

    for (let i = 0; i < LONG_TURNS; i++) {
      expect((await send(s, LONG_TEXT)).status).toBe(202);
      await events.until("runEnd");
    }

    await send(s, "echo second");
    const before = await events.until("toolApprovalRequired");
    // Not renamed: the core no longer held the earlier call_0, so only the decision's key tells them apart.
    expect(before.at(-1)!.json.toolCallId).toBe("call_0");
    expect(before.filter((e) => e.event === "toolExecEnd")).toEqual([]);
    expect((await decide(s, "call_0", true)).status).toBe(200);
    const second = await events.until("runEnd");
    const end = second.find((e) => e.event === "toolExecEnd")!;
    expect(end.json).toMatchObject({ toolCallId: "call_0", isError: false });
    expect(JSON.stringify(end.json.result)).toContain("second");
    // The earlier run's decision is gone with its run: nothing is left waiting or decided twice.
    expect((await decide(s, "call_0", true)).status).toBe(409);
    await events.cancel();
  });
});
