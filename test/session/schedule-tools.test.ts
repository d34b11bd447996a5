/**
 * The bundled schedule tools driven by the scripted model: `schedule` makes a schedule that later fires
 * into the same session, with the routes' checks and MAX_SCHEDULES; `listSchedules` and `cancelSchedule`
 * see and end the session's own schedules; a deployer's requireApproval holds them like any tool.
 */
import { describe, expect, it } from "vitest";
import { api, createSession, openEvents, script, send, type SseEvent, type TestSession } from "./support.ts";

const toolEnd = (events: SseEvent[]) =>
  events.find((e) => e.event === "toolExecEnd")!.json as unknown as {
    isError: boolean;
    result: { content: { text: string }[]; details: Record<string, unknown> };
  };

async function callTool(s: TestSession, name: string, args: Record<string, unknown>): Promise<ReturnType<typeof toolEnd>> {
  await script(s, { toolCalls: [{ id: `c_${name}`, name, arguments: args }] }, { text: "done" });
  const events = await openEvents(s, (await s.handle.snapshot()).lastEventSeq);
  await send(s, `call ${name}`);
  const end = toolEnd(await events.until("runEnd"));
  await events.cancel();
  return end;
}

describe("the schedule tools", () => {
  it("let the model schedule a message that later runs in its session", async () => {
    const s = await createSession();
    await script(
      s,
      { toolCalls: [{ id: "c1", name: "schedule", arguments: { message: "check the oven", delayMs: 300, name: "oven" } }] },
      { text: "I'll check again soon" },
      { text: "checked the oven" },
    );
    const events = await openEvents(s);
    await send(s, "remind yourself to check the oven");
    const first = await events.until("runEnd");
    const end = toolEnd(first);
    expect(end.isError).toBe(false);
    const id = end.result.details.id as string;
    expect(end.result.content[0]!.text).toContain(id);
    expect((await s.handle.schedules()).schedules).toMatchObject([{ id, name: "oven", kind: "at", message: "check the oven" }]);
    const second = await events.until("runEnd");
    expect(second.find((e) => e.event === "scheduleFired")!.json).toMatchObject({ scheduleId: id });
    expect(second.at(-1)!.json.response).toMatchObject({ content: [{ text: "checked the oven" }] });
    expect((await s.handle.schedules()).schedules).toEqual([]);
    await events.cancel();
  });

  it("refuse what the route refuses: a too-short interval, then more than MAX_SCHEDULES", async () => {
    const s = await createSession();
    const short = await callTool(s, "schedule", { message: "spin", everyMs: 100 });
    expect(short.isError).toBe(true);
    expect(short.result.content[0]!.text).toContain("SCHEDULE_MIN_INTERVAL_MS");
    for (let i = 0; i < 5; i++) await s.handle.schedule({ message: `m${i}`, delayMs: 3_600_000 });
    const over = await callTool(s, "schedule", { message: "one more", delayMs: 3_600_000 });
    expect(over.isError).toBe(true);
    expect(over.result.content[0]!.text).toContain("MAX_SCHEDULES");
    expect((await s.handle.schedules()).schedules).toHaveLength(5);
  });

  it("list and cancel the session's schedules", async () => {
    const s = await createSession();
    const { id } = await s.handle.schedule({ message: "water the plants", cron: "0 9 * * 1" });
    const listed = await callTool(s, "listSchedules", {});
    expect(listed.result.content[0]!.text).toContain(id);
    expect(listed.result.content[0]!.text).toContain("water the plants");
    const unknown = await callTool(s, "cancelSchedule", { id: "no-such-id" });
    expect(unknown.isError).toBe(true);
    expect((await callTool(s, "cancelSchedule", { id })).isError).toBe(false);
    expect((await s.handle.schedules()).schedules).toEqual([]);
  });

  it("wait for a human when the deployer requires approval for them", async () => {
    const s = await createSession({ requireApproval: ["schedule"] });
    await script(s, { toolCalls: [{ id: "c9", name: "schedule", arguments: { message: "later", delayMs: 3_600_000 } }] }, { text: "ok" });
    const events = await openEvents(s);
    await send(s, "schedule something");
    await events.until("toolApprovalRequired");
    expect((await s.handle.schedules()).schedules).toEqual([]);
    expect((await api(`/v1/sessions/${s.id}/tool-calls/c9/approval`, { method: "POST", key: s.key, json: { approve: true } })).status).toBe(
      200,
    );
    await events.until("runEnd");
    expect((await s.handle.schedules()).schedules).toMatchObject([{ message: "later" }]);
    await events.cancel();
  });
});
