/**
 * The at-most-once journal holds for MCP tools across restarts. abortAllDurableObjects() resets every
 * object of the Worker, which is why the workers-mcp project runs its files one at a time.
 */
import { abortAllDurableObjects, env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSession, openEvents, script, send, snapshotOf } from "../../session/support.ts";
import { mcpState, waitFor } from "./support.ts";

describe("MCP tools across restarts", () => {
  it("never calls a remote tool twice: a call interrupted by a restart gets an error result", async () => {
    const session = await createSession({ mcpServers: ["mock"] });
    const ms = 3_000 + Math.floor(Math.random() * 1_000); // marks this test's call on the shared server
    await script(session, { toolCalls: [{ id: "r1", name: "mock_sleep", arguments: { ms } }] }, { text: "noted the restart" });
    const events = await openEvents(session);
    await send(session, "sleep through a restart");
    const before = await events.until("toolExecStart");
    const callsOfThisTest = async () => (await mcpState()).calls.filter((c) => (c.args as { ms?: number }).ms === ms).length;
    await waitFor(async () => (await callsOfThisTest()) === 1);

    await abortAllDurableObjects();
    await runDurableObjectAlarm(env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id)));
    const resumed = await openEvents(session, Number(before.at(-1)!.id));
    const after = await resumed.until("runEnd");

    const end = after.find((e) => e.event === "toolExecEnd")!;
    expect(end.json).toMatchObject({ toolName: "mock_sleep", isError: true });
    expect(JSON.stringify(end.json.result)).toContain("restarted");
    expect(await callsOfThisTest()).toBe(1);
    expect((await snapshotOf(session)).messages.filter((m) => m.role === "toolResult")).toHaveLength(1);
    await resumed.cancel();
  });
});
