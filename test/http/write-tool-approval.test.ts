/**
 * writeTool needs a human's yes by default, through its own tool flag: a session created without any
 * approval setting waits, and a session's PATCH cannot lift it.
 */
import { describe, expect, it } from "vitest";
import { getTool } from "../../tools/writeTool.ts";
import { readEntry } from "../../src/tools/written/tool-index.ts";
import { api, createSession, nextResponse, openEvents, script, send } from "../session/support.ts";
import { adderInput, textOf, toolResults, uniqueName, workerEnv, writeToolReply } from "../session/write-tool-support.ts";

describe("writeTool's approval", () => {
  it("is required by the tool itself", () => {
    expect(getTool().requiresApproval).toBe(true);
  });

  it("holds a session that asked for no approvals, even after PATCH requireApproval: [], and a no stores nothing", async () => {
    const name = uniqueName("needsYes");
    const session = await createSession();
    const patched = await api(`/v1/sessions/${session.id}`, { method: "PATCH", key: session.key, json: { requireApproval: [] } });
    expect(patched.status).toBe(200);
    await script(session, writeToolReply("w1", adderInput(name)), { text: "ok" });
    const events = await openEvents(session);
    await send(session, "write a tool");
    const asked = (await events.until("toolApprovalRequired")).at(-1)!;
    expect(asked.json).toMatchObject({ toolName: "writeTool" });
    expect(await readEntry(workerEnv.TOOL_INDEX, name)).toBeUndefined();
    const toolCallId = String(asked.json.toolCallId);
    await api(`/v1/sessions/${session.id}/tool-calls/${encodeURIComponent(toolCallId)}/approval`, {
      method: "POST",
      key: session.key,
      json: { approve: false, reason: "not today" },
    });
    await nextResponse(session);
    const [result] = await toolResults(session);
    expect(result).toMatchObject({ toolName: "writeTool", isError: true });
    expect(textOf(result)).toBe("Rejected: not today");
    expect(await readEntry(workerEnv.TOOL_INDEX, name)).toBeUndefined();
    await events.cancel();
  });
});
