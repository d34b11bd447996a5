/**
 * A remote MCP server's elicitation/create, against a real SDK McpServer on 127.0.0.1 that asks
 * (test/support/eliciting-mcp-server.ts): the session announces mcpElicitation, waits, and sends the
 * answer given on POST /v1/sessions/:id/elicitations/:elicitationId; bad content is refused naming
 * the field; an abort answers the server with cancel.
 */
import { describe, expect, it, inject } from "vitest";
import { api, createSession, openEvents, script, send, snapshotOf } from "../../session/support.ts";
import type { ReceivedAnswer } from "../../support/eliciting-mcp-server.ts";
import { toolsOnceListed, waitFor } from "./support.ts";

const answers = async (): Promise<ReceivedAnswer[]> => (await fetch(`${inject("askerUrl")}/answers`)).json();
const answer = (session: { id: string; key: string }, elicitationId: string, json: unknown) =>
  api(`/v1/sessions/${session.id}/elicitations/${elicitationId}`, { method: "POST", key: session.key, json });

async function askedSession() {
  const session = await createSession({ mcpServers: ["asker"] });
  await toolsOnceListed(session, ["asker_signup"]);
  await script(session, { toolCalls: [{ id: "s1", name: "asker_signup", arguments: {} }] }, { text: "signed up" });
  const events = await openEvents(session);
  await send(session, "sign me up");
  const asked = (await events.until("mcpElicitation")).at(-1)!;
  return {
    session,
    events,
    asked: asked.json as unknown as {
      elicitationId: string;
      server: string;
      message: string;
      requestedSchema: { properties: Record<string, unknown> };
    },
  };
}

describe("an MCP server's elicitation", () => {
  it("is announced with its form, waits, and receives the accepted content", async () => {
    const { session, events, asked } = await askedSession();
    expect(asked).toMatchObject({ server: "asker", message: "Please sign up", requestedSchema: { required: ["name", "plan"] } });
    expect(Object.keys(asked.requestedSchema.properties)).toEqual(["name", "age", "plan", "newsletter"]);
    expect((await snapshotOf(session)).pendingElicitations).toMatchObject([{ elicitationId: asked.elicitationId, server: "asker" }]);
    const res = await answer(session, asked.elicitationId, { action: "accept", content: { name: "Ada", plan: "pro", age: 36 } });
    expect(res.status).toBe(200);
    const end = (await events.until("toolExecEnd")).at(-1)!;
    // The client applies the schema's defaults to fields the person left out (newsletter).
    expect(end.json).toMatchObject({
      isError: false,
      result: { content: [{ text: 'answer: accept {"name":"Ada","plan":"pro","age":36,"newsletter":false}' }] },
    });
    expect((await answers()).at(-1)).toEqual({ action: "accept", content: { name: "Ada", plan: "pro", age: 36, newsletter: false } });
    // Answered once: a second answer is a conflict, an unknown id is 404.
    expect((await answer(session, asked.elicitationId, { action: "decline" })).status).toBe(409);
    expect((await answer(session, "elc_00000000-0000-0000-0000-000000000000", { action: "decline" })).status).toBe(404);
    expect((await snapshotOf(session)).pendingElicitations).toEqual([]);
    await events.cancel();
  });

  it("refuses content that breaks the requested schema with a 400 naming the field, and keeps waiting", async () => {
    const { session, events, asked } = await askedSession();
    const missing = await answer(session, asked.elicitationId, { action: "accept", content: { name: "Ada" } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain("plan");
    const wrongEnum = await answer(session, asked.elicitationId, { action: "accept", content: { name: "Ada", plan: "gold" } });
    expect(wrongEnum.status).toBe(400);
    expect(((await wrongEnum.json()) as { error: { message: string } }).error.message).toMatch(/^content\.plan: /);
    expect((await answer(session, asked.elicitationId, { action: "maybe" })).status).toBe(400);
    expect((await answer(session, asked.elicitationId, { action: "decline" })).status).toBe(200);
    await events.until("toolExecEnd");
    expect((await answers()).at(-1)).toEqual({ action: "decline" });
    await events.cancel();
  });

  it("answers the server with cancel when nobody answers within APPROVAL_TIMEOUT_MS (3 s here)", async () => {
    const before = (await answers()).filter((a) => a.action === "cancel").length;
    const { session, events, asked } = await askedSession();
    const started = Date.now();
    await events.until("toolExecEnd");
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
    expect((await answers()).filter((a) => a.action === "cancel").length).toBe(before + 1);
    expect((await answer(session, asked.elicitationId, { action: "decline" })).status).toBe(409);
    await events.cancel();
  });

  it("answers the server with cancel when the run is aborted while it waits", async () => {
    const before = (await answers()).filter((a) => a.action === "cancel").length;
    const { session, events, asked } = await askedSession();
    const started = Date.now();
    await api(`/v1/sessions/${session.id}/abort`, { method: "POST", key: session.key });
    await events.until("runEnd");
    await waitFor(async () => (await answers()).filter((a) => a.action === "cancel").length === before + 1, 2_000);
    // Well before the 3 s deadline: the abort, not the timeout, answered.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect((await answer(session, asked.elicitationId, { action: "accept", content: { name: "x", plan: "free" } })).status).toBe(409);
    await events.cancel();
  });
});
