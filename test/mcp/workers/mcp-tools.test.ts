import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/http/app.ts";
import { api, createSession, llmRequests, nextResponse, openEvents, script, send, snapshotOf } from "../../session/support.ts";
import { mcpControl, mcpState, toolsOnceListed, waitFor } from "./support.ts";

const unique = () => crypto.randomUUID().slice(0, 8);

describe("MCP servers' tools in a session", () => {
  it("registers each server tool as <server>_<tool>, with names sanitised to the tool-name pattern", async () => {
    const session = await createSession({ mcpServers: ["mock"] });
    const tools = await toolsOnceListed(session, ["mock_echo"]);
    expect(tools).toEqual(expect.arrayContaining(["mock_echo", "mock_count_slowly", "mock_fail", "mock_sleep", "mock_area", "mock_clock"]));
    expect(tools.some((t) => t.startsWith("legacy_"))).toBe(false);
  });

  it("runs a call on the server, with the configured headers, and feeds its result to the model", async () => {
    const session = await createSession({ mcpServers: ["mock"] });
    const word = unique();
    await script(session, { toolCalls: [{ id: "e1", name: "mock_echo", arguments: { text: word } }] }, { text: "done" });
    const events = await openEvents(session);
    await send(session, "echo it");
    const end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json).toMatchObject({
      toolName: "mock_echo",
      isError: false,
      result: { content: [{ type: "text", text: `echo: ${word}` }] },
    });
    await events.until("runEnd");
    const toolMessage = (await llmRequests(session))[1]!.body.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toBe(`echo: ${word}`);
    const state = await mcpState();
    expect(state.calls).toContainEqual({ tool: "echo", args: { text: word } });
    expect(state.lastToken).toBe("secret-1");
    await events.cancel();
  });

  it("streams the server's progress notifications as toolExecUpdate events before the end", async () => {
    const session = await createSession({ mcpServers: ["mock"] });
    await script(session, { toolCalls: [{ id: "p1", name: "mock_count_slowly", arguments: { n: 3 } }] }, { text: "counted" });
    const events = await openEvents(session);
    await send(session, "count");
    const seen = (await events.until("toolExecEnd")).filter((e) => e.json.toolName === "mock_count_slowly");
    expect(seen.map((e) => e.event)).toEqual(["toolExecStart", "toolExecUpdate", "toolExecUpdate", "toolExecUpdate", "toolExecEnd"]);
    expect(seen[3]!.json.partialResult).toEqual({ progress: 3, total: 3, message: "step 3" });
    expect(seen[4]!.json.result).toMatchObject({ content: [{ text: "counted to 3" }], details: { structuredContent: { n: 3 } } });
    await events.cancel();
  });

  it("turns a result the server marks isError into an error result with the server's message", async () => {
    const session = await createSession({ mcpServers: ["mock"] });
    await script(session, { toolCalls: [{ id: "f1", name: "mock_fail", arguments: {} }] }, { text: "it failed" });
    const events = await openEvents(session);
    await send(session, "fail please");
    const end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "the fail tool failed on purpose" }] } });
    await events.cancel();
  });

  it("validates arguments against a oneOf/if/then schema before anything reaches the server", async () => {
    const session = await createSession({ mcpServers: ["mock"] });
    await script(
      session,
      {
        toolCalls: [
          { id: "a1", name: "mock_area", arguments: { shape: { kind: "circle", r: 1 }, unit: "percent", scale: 150 } },
          { id: "a2", name: "mock_area", arguments: { shape: { kind: "circle" } } },
          { id: "a3", name: "mock_area", arguments: { shape: { kind: "square", side: 3 }, unit: "percent", scale: 50 } },
        ],
      },
      { text: "areas" },
    );
    const before = (await mcpState()).calls.filter((c) => c.tool === "area").length;
    const events = await openEvents(session);
    await send(session, "areas");
    const ends = (await events.until("runEnd")).filter((e) => e.event === "toolExecEnd");
    expect(ends.map((e) => e.json.isError)).toEqual([true, true, false]);
    expect(JSON.stringify(ends[0]!.json.result)).toMatch(/scale.*100/);
    expect(JSON.stringify(ends[1]!.json.result)).toContain("shape");
    expect(ends[2]!.json.result).toMatchObject({ content: [{ text: "area 9.00" }] });
    expect((await mcpState()).calls.filter((c) => c.tool === "area").length - before).toBe(1);
    await events.cancel();
  });

  it("sends an MCP cancellation when the run is aborted during a call", async () => {
    const session = await createSession({ mcpServers: ["mock"] });
    await script(session, { toolCalls: [{ id: "s1", name: "mock_sleep", arguments: { ms: 10_000 } }] });
    const cancelledBefore = (await mcpState()).cancelled.length;
    const events = await openEvents(session);
    await send(session, "sleep");
    await events.until("toolExecStart");
    await waitFor(async () => (await mcpState()).calls.some((c) => c.tool === "sleep" && (c.args as { ms: number }).ms === 10_000));
    await api(`/v1/sessions/${session.id}/abort`, { method: "POST", key: session.key });
    const end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json).toMatchObject({ toolName: "mock_sleep", isError: true });
    await waitFor(async () => (await mcpState()).cancelled.length > cancelledBefore);
    await events.until("runEnd");
    await events.cancel();
  });

  it("ends a call that outlives the server's timeoutMs with an error result and a cancellation", async () => {
    const session = await createSession({ mcpServers: ["slow"] });
    await script(session, { toolCalls: [{ id: "t1", name: "slow_sleep", arguments: { ms: 5_000 } }] }, { text: "too slow" });
    const cancelledBefore = (await mcpState()).cancelled.length;
    const events = await openEvents(session);
    await send(session, "sleep long");
    const end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json).toMatchObject({ toolName: "slow_sleep", isError: true });
    expect(JSON.stringify(end.json.result)).toContain("timed out after 400 ms");
    await waitFor(async () => (await mcpState()).cancelled.length > cancelledBefore);
    await events.cancel();
  });

  it("asks a human before calling a tool of a server configured with requireApproval", async () => {
    const session = await createSession({ mcpServers: ["gated"] });
    await script(session, { toolCalls: [{ id: "g1", name: "gated_clock", arguments: {} }] }, { text: "approved and ran" });
    const events = await openEvents(session);
    await send(session, "what time");
    const asked = (await events.until("toolApprovalRequired")).at(-1)!;
    expect(asked.json.toolName).toBe("gated_clock");
    const decided = await api(`/v1/sessions/${session.id}/tool-calls/${asked.json.toolCallId}/approval`, {
      method: "POST",
      key: session.key,
      json: { approve: true },
    });
    expect(decided.status).toBe(200);
    const end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json).toMatchObject({ isError: false, result: { content: [{ text: "tick" }] } });
    await events.cancel();
  });

  it("asks a human before an MCP tool named in requireApproval at creation", async () => {
    const session = await createSession({ mcpServers: ["mock"], requireApproval: ["mock_clock"] });
    await script(session, { toolCalls: [{ id: "c1", name: "mock_clock", arguments: {} }] }, { text: "asked" });
    const events = await openEvents(session);
    await send(session, "what time");
    expect((await events.until("toolApprovalRequired")).at(-1)!.json.toolName).toBe("mock_clock");
    await events.cancel();
  });

  it("asks a human before an MCP tool after PATCH requireApproval names it", async () => {
    const session = await createSession({ mcpServers: ["mock"] });
    await toolsOnceListed(session, ["mock_clock"]);
    const patched = await api(`/v1/sessions/${session.id}`, {
      method: "PATCH",
      key: session.key,
      json: { requireApproval: ["mock_clock"] },
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toEqual({ requireApproval: ["mock_clock"] });
    await script(session, { toolCalls: [{ id: "c2", name: "mock_clock", arguments: {} }] }, { text: "asked" });
    const events = await openEvents(session);
    await send(session, "what time");
    expect((await events.until("toolApprovalRequired")).at(-1)!.json.toolName).toBe("mock_clock");
    await events.cancel();
  });

  it("refuses requireApproval names that are neither the session's tools nor of its MCP servers", async () => {
    const created = await api("/v1/sessions", { method: "POST", json: { mcpServers: ["mock"], requireApproval: ["legacy_echo"] } });
    expect(created.status).toBe(400);
    expect(((await created.json()) as { error: { message: string } }).error.message).toBe("Unknown tool(s): legacy_echo");
    const session = await createSession({ mcpServers: ["mock"] });
    const patched = await api(`/v1/sessions/${session.id}`, {
      method: "PATCH",
      key: session.key,
      json: { requireApproval: ["mock_echo", "gated_clock"] },
    });
    expect(patched.status).toBe(400);
    expect(((await patched.json()) as { error: { message: string } }).error.message).toBe("Unknown tool(s): gated_clock");
  });

  it("reaches a server that speaks only the older HTTP+SSE transport", async () => {
    const session = await createSession({ mcpServers: ["legacy"] });
    const word = unique();
    await script(session, { toolCalls: [{ id: "l1", name: "legacy_echo", arguments: { text: word } }] }, { text: "legacy done" });
    const events = await openEvents(session);
    await send(session, "legacy echo");
    const end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json).toMatchObject({ isError: false, result: { content: [{ text: `echo: ${word}` }] } });
    await events.cancel();
  });

  it("reports an unreachable server as an error event, without its address, and still answers the message", async () => {
    const session = await createSession({ mcpServers: ["dead"] });
    await script(session, { text: "answered without the dead server" });
    const events = await openEvents(session);
    await send(session, "hello");
    const seen = await events.until("runEnd");
    const errors = seen.filter((e) => e.event === "error").map((e) => String(e.json.message));
    expect(errors.some((m) => m.includes('MCP server "dead"') && m.includes("unreachable"))).toBe(true);
    // The address is for operators (GET /v1/tools with the token, the Worker's logs), not for sessions.
    expect(JSON.stringify(seen)).not.toContain("127.0.0.1:9");
    expect(seen.at(-1)!.json.response).toMatchObject({ content: [{ text: "answered without the dead server" }] });
    expect((await snapshotOf(session)).status).toBe("idle");
    await events.cancel();
  });

  it("follows notifications/tools/list_changed: a tool the server adds later joins the session", async () => {
    const session = await createSession({ mcpServers: ["mock"] });
    await toolsOnceListed(session, ["mock_echo"]);
    await mcpControl("add-tool");
    await toolsOnceListed(session, ["mock_late"]);
    await script(session, { toolCalls: [{ id: "n1", name: "mock_late", arguments: {} }] }, { text: "late ran" });
    await send(session, "use the new tool");
    expect((await nextResponse(session)).content).toEqual([{ type: "text", text: "late ran" }]);
  });

  it("refuses a session that names an MCP server the Worker does not know", async () => {
    const res = await api("/v1/sessions", { method: "POST", json: { mcpServers: ["mock", "nope"] } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("Unknown MCP server(s): nope");
  });

  it("refuses to create sessions with a clear error when MCP_SERVERS is malformed", async () => {
    const request = new Request("http://edge.test/v1/sessions", { method: "POST" });
    const res = await app.fetch(request, { ...env, MCP_SERVERS: '[{"name":"x","url":"not a url"}]' });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: { code: "misconfigured", message: expect.stringContaining("MCP_SERVERS is invalid: [0].url") },
    });
  });
});
