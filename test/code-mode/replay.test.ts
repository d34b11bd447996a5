/**
 * At most once across restarts: a restart in the middle of a program runs it again, and its nested calls
 * replay from the journal. countedWork counts its executions in KV, which the restart leaves alone.
 * abortAllDurableObjects() resets every object of this Worker: this project runs one file at a time.
 */
import { abortAllDurableObjects, env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createSession, openEvents, script, send, type TestSession } from "../session/support.ts";
import { sleep } from "../support/time.ts";

async function restartSessionObject(session: TestSession): Promise<void> {
  await abortAllDurableObjects();
  await runDurableObjectAlarm(env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id)));
}

/** Starts `code` as runCode call `id`, restarts the object while nested call `<id>.2` runs, returns the events after. */
async function restartDuringSecondCall(code: string, id: string) {
  const session = await createSession();
  await script(session, { toolCalls: [{ id, name: "runCode", arguments: { code } }] }, { text: "done" });
  const events = await openEvents(session);
  await send(session, "run it");
  const before = await events.until("toolExecStart");
  while (before.at(-1)!.json.toolCallId !== `${id}.2`) before.push(...(await events.until("toolExecStart")));
  await sleep(200); // the second call counts itself, then works for 3 s
  await restartSessionObject(session);
  const resumed = await openEvents(session, Number(before.at(-1)!.id));
  const after = await resumed.until("runEnd");
  await resumed.cancel();
  return { before, after };
}

const runs = (id: string) => env.TOOL_INDEX.get(`test-runs:${id}`);

describe("runCode across a restart", () => {
  it("replays finished calls, reports the interrupted one, and runs each call at most once", async () => {
    const code = [
      "const a = await tools.countedWork({ ms: 0 });",
      "let b;",
      "try { b = await tools.countedWork({ ms: 3000 }); } catch (e) { b = 'interrupted: ' + e.message; }",
      "const c = await tools.countedWork({ ms: 0 });",
      "return [a, b, c];",
    ].join("\n");
    const { before, after } = await restartDuringSecondCall(code, "r1");
    expect(before.filter((e) => e.event === "toolExecEnd").map((e) => e.json.toolCallId)).toEqual(["r1.1"]);
    // After the restart: r1.1 replays silently, r1.2 ends interrupted, r1.3 runs, then the program ends.
    expect(after.filter((e) => e.event === "toolExecStart").map((e) => e.json.toolCallId)).toEqual(["r1.3"]);
    const ends = after.filter((e) => e.event === "toolExecEnd").map((e) => [e.json.toolCallId, e.json.isError]);
    expect(ends).toEqual([
      ["r1.2", true],
      ["r1.3", false],
      ["r1", false],
    ]);
    const end = after.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === "r1")!;
    const { returned } = JSON.parse((end.json.result as { content: { text: string }[] }).content[0]!.text);
    expect(returned[0]).toBe("worked 1 time(s)");
    expect(returned[1]).toMatch(/^interrupted: .*restarted/);
    expect(returned[2]).toBe("worked 1 time(s)");
    expect([await runs("r1.1"), await runs("r1.2"), await runs("r1.3")]).toEqual(["1", "1", "1"]);
  });

  it("never runs a different call in a stored call's place", async () => {
    const code = [
      "let first;",
      "try { first = await tools.countedWork({ ms: 0, nonce: Math.random() }); } catch (e) { return 'refused: ' + e.message; }",
      "await tools.countedWork({ ms: 3000 });",
      "return first;",
    ].join("\n");
    const { after } = await restartDuringSecondCall(code, "m1");
    const end = after.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === "m1")!;
    const { returned } = JSON.parse((end.json.result as { content: { text: string }[] }).content[0]!.text);
    expect(returned).toMatch(/^refused: The program made a different call/);
    expect(await runs("m1.1")).toBe("1");
    // The call the re-run never reached again still gets its end.
    const unreached = after.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === "m1.2")!;
    expect(unreached.json).toMatchObject({ toolName: "countedWork", isError: true, parentToolCallId: "m1" });
  });
});

describe("a nested call waiting for a person across a restart", () => {
  it("waits again without asking twice, and runs once approved", async () => {
    const session = await createSession({ requireApproval: ["countedWork"] });
    const code = "const a = await tools.countedWork({ ms: 0 });\nreturn a;";
    await script(session, { toolCalls: [{ id: "p1", name: "runCode", arguments: { code } }] }, { text: "done" });
    const events = await openEvents(session);
    await send(session, "run it");
    const before = await events.until("toolApprovalRequired");
    expect(before.at(-1)!.json).toMatchObject({ toolCallId: "p1.1", parentToolCallId: "p1" });
    await events.cancel();
    await restartSessionObject(session);
    const resumed = await openEvents(session, Number(before.at(-1)!.id));
    await sleep(300); // the program runs again and reaches its call, which waits again
    const decided = await api(`/v1/sessions/${session.id}/tool-calls/p1.1/approval`, {
      method: "POST",
      key: session.key,
      json: { approve: true },
    });
    expect(decided.status).toBe(200);
    const after = await resumed.until("runEnd");
    await resumed.cancel();
    expect(after.filter((e) => e.event === "toolApprovalRequired")).toEqual([]);
    const end = after.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === "p1")!;
    expect(JSON.parse((end.json.result as { content: { text: string }[] }).content[0]!.text).returned).toBe("worked 1 time(s)");
    expect(await runs("p1.1")).toBe("1");
  });
});
