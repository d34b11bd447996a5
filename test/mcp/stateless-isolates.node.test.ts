/**
 * /mcp keeps no protocol state in an isolate: a client's requests spread over two Workers (two `wrangler
 * dev` processes on one state, started one after another, with the same SIGNING_SECRET) are served as if
 * one Worker answered them all. A 2025-11-25 client initializes at the first and lists and calls tools at
 * the second; a 2026-07-28 client discovers at one, and a call that asks the user for input (a Multi
 * Round-Trip Request) gets its question from one Worker and finishes at the other. An id or a request
 * state this deployment did not sign is refused. What a 2025-11-25 session keeps (its logging level, the
 * end a DELETE made) is in its Durable Object's storage, shown by restarting the Worker and its objects;
 * a call whose elicitation a restart cuts off ends, and its late answer does not wedge the session.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { copyProject, plainToolSource, REPO_ROOT, type TempProject } from "../support/temp-project.ts";

const MODERN = "2026-07-28";
const SECRET = "isolates-test-signing-secret-0123456789";
const CLIENT_META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "isolates-test", version: "1.0.0" },
};

let project: TempProject;
let state: string;
let first: WranglerDev;
let second: WranglerDev;
let options: Parameters<typeof startWranglerDev>[0];

/** Stops `dev` and starts another Worker on the same state: no isolate and no object outlives it. */
async function restart(dev: WranglerDev): Promise<WranglerDev> {
  await dev.stop();
  return startWranglerDev(options);
}

type Rpc = { status: number; headers: Headers; messages: Record<string, unknown>[] };

/** POSTs one JSON-RPC message; the answer's messages whether it came as JSON or as an SSE stream. */
async function post(url: string, message: unknown, headers: Record<string, string> = {}): Promise<Rpc> {
  // Revision 2026-07-28 repeats the method (and a call's tool name) in headers (SEP-2243).
  const { method, params } = message as { method: string; params?: { name?: unknown } };
  const standard =
    headers["mcp-protocol-version"] === MODERN
      ? { "mcp-method": method, ...(method === "tools/call" && typeof params?.name === "string" ? { "mcp-name": params.name } : {}) }
      : {};
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...standard, ...headers },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  const messages = (response.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data:") && line.slice(5).trim() !== "")
        .map((line) => JSON.parse(line.slice(5)))
    : text
      ? [JSON.parse(text)]
      : [];
  return { status: response.status, headers: response.headers, messages };
}

const answerOf = (rpc: Rpc, id: number) => rpc.messages.find((m) => m.id === id);

/** Opens a 2025-11-25 session at `url` (initialize, then its notification); its sealed id. */
async function initialize(url: string, capabilities: Record<string, unknown>): Promise<string> {
  const init = await post(url, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "old-client", version: "1.0.0" } },
  });
  expect(init.status).toBe(200);
  const sessionId = init.headers.get("mcp-session-id")!;
  expect(sessionId).toBeTruthy();
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
  expect((await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
  return sessionId;
}

beforeAll(async () => {
  const fixture = (name: string) => readFile(path.join(REPO_ROOT, "test", "mcp", "conformance", "tools", name), "utf8");
  project = await copyProject({
    tools: {
      "echoTool.ts": plainToolSource("echoTool", "echoed"),
      "test_elicitation.ts": await fixture("test_elicitation.ts"),
      "test_tool_with_logging.ts": await fixture("test_tool_with_logging.ts"),
    },
  });
  state = await mkdtemp(path.join(tmpdir(), "mcp-isolates-"));
  options = {
    cwd: project.root,
    config: path.join(project.root, "wrangler.toml"),
    persistTo: state,
    vars: { SIGNING_SECRET: SECRET },
  };
  // One after another: side by side they can collide on wrangler's internal ports.
  first = await startWranglerDev(options);
  second = await startWranglerDev(options);
}, 180_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
  await project?.remove();
  if (state) await rm(state, { recursive: true, force: true });
});

describe("/mcp across two Workers on one state", () => {
  it("serves a 2025-11-25 client that initializes at one Worker and calls tools at the other", async () => {
    const init = await post(first.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old-client", version: "1.0.0" } },
    });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get("mcp-session-id");
    expect(sessionId).toBeTruthy();
    const headers = { "mcp-session-id": sessionId!, "mcp-protocol-version": "2025-11-25" };
    expect((await post(second.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
    const list = await post(second.url, { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, headers);
    expect(list.status, JSON.stringify(list.messages)).toBe(200);
    const listed = answerOf(list, 2)?.result as { tools: { name: string }[] } | undefined;
    const tools = (listed?.tools ?? []).map((t) => t.name);
    expect(tools).toContain("echoTool");
    const call = await post(
      second.url,
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echoTool", arguments: {} } },
      headers,
    );
    expect(answerOf(call, 3)?.result).toMatchObject({ content: [{ type: "text", text: "echoed" }] });
    // Back at the first, too.
    const again = await post(
      first.url,
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echoTool", arguments: {} } },
      headers,
    );
    expect(answerOf(again, 4)?.result).toMatchObject({ content: [{ type: "text", text: "echoed" }] });
  });

  it("refuses a session id this deployment did not sign", async () => {
    const forged = await post(
      second.url,
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
      { "mcp-session-id": "eyJjYXBhYmlsaXRpZXMiOnt9fQ.forged", "mcp-protocol-version": "2025-11-25" },
    );
    expect(forged.status).toBe(404);
  });

  it("refuses a 2026-07-28 request whose Mcp-Method or Mcp-Name header says other than its body (SEP-2243)", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echoTool", arguments: {}, _meta: CLIENT_META } };
    const cases: Record<string, string>[] = [
      { "mcp-method": "tools/list" },
      { "mcp-name": "another_tool" },
      { "mcp-method": "TOOLS/CALL" },
    ];
    for (const headers of cases) {
      const refused = await post(first.url, call, { "mcp-protocol-version": MODERN, ...headers });
      expect(refused.status, JSON.stringify(headers)).toBe(400);
      expect(answerOf(refused, 1)?.error).toMatchObject({ code: -32020 });
    }
    const spaced = await post(first.url, call, { "mcp-protocol-version": MODERN, "mcp-name": "  echoTool " });
    expect(answerOf(spaced, 1)?.result).toMatchObject({ content: [{ type: "text", text: "echoed" }] });
  });

  it("serves a 2026-07-28 client's Multi Round-Trip call, asked at one Worker and answered at the other", async () => {
    const headers = { "mcp-protocol-version": MODERN };
    const discover = await post(first.url, { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: CLIENT_META } }, headers);
    expect(answerOf(discover, 1)?.result).toMatchObject({ supportedVersions: expect.arrayContaining([MODERN, "2025-11-25"]) });
    const params = { name: "test_elicitation", arguments: { message: "Who are you?" }, _meta: CLIENT_META };
    const round1 = await post(first.url, { jsonrpc: "2.0", id: 2, method: "tools/call", params }, headers);
    const asked = answerOf(round1, 2)?.result as {
      resultType: string;
      inputRequests: Record<string, { method: string }>;
      requestState: string;
    };
    expect(asked.resultType).toBe("input_required");
    const [key, question] = Object.entries(asked.inputRequests)[0]!;
    expect(question.method).toBe("elicitation/create");
    const answer = { action: "accept", content: { username: "ada", email: "ada@example.com" } };
    const round2 = await post(
      second.url,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { ...params, inputResponses: { [key]: answer }, requestState: asked.requestState },
      },
      headers,
    );
    expect(answerOf(round2, 3)?.result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: expect.stringContaining('"username":"ada"') }],
    });
    // A state changed by the client is refused, by either Worker.
    const tampered = await post(
      second.url,
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { ...params, inputResponses: { [key]: answer }, requestState: `${asked.requestState}x` },
      },
      headers,
    );
    expect(tampered.status).toBe(400);
    expect(answerOf(tampered, 4)?.error).toMatchObject({ code: -32602 });
  });
  // A 2025-11-25 question waits on its call's open stream: the live exchange is in the object's memory, so a
  // restart ends the call (its client sees the stream close and may call again); what must outlive it is
  // the session, and a late answer must not wedge it.
  it("ends a 2025-11-25 call whose elicitation a restart cut off, and serves the session's next call", async () => {
    const sessionId = await initialize(second.url, { elicitation: {} });
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    const call = await fetch(`${second.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "test_elicitation", arguments: { message: "Who?" } },
      }),
    });
    const reader = call.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("elicitation/create")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the call's stream ended before its question: ${text}`);
      text += value;
    }
    const question = JSON.parse(/data: (.*elicitation\/create.*)/.exec(text)![1]!) as { id: number | string };
    second = await restart(second);
    // The call died with the Worker and its objects: its stream ends without a result.
    let rest = "";
    for (;;) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) break;
      rest += next.value;
    }
    expect(rest).not.toContain('"id":2');
    const late = await fetch(`${second.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: question.id,
        result: { action: "accept", content: { username: "ada", email: "ada@example.com" } },
      }),
    });
    // The answer to a question nobody waits for any more is acknowledged as any response is, and dropped.
    expect(late.status).toBe(202);
    // The session itself lives in its object's storage: it serves the client's next call.
    const again = await post(
      second.url,
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "test_tool_with_logging", arguments: {} } },
      headers,
    );
    expect(answerOf(again, 3)?.result).toMatchObject({ content: [{ type: "text", text: "Logging test completed" }] });
  }, 120_000);

  // Two live copies of one object (which two processes on one state make, and production never does) do
  // not see each other's storage: what a session's object keeps is shown to outlive the Worker and its
  // objects instead, by restarting them between requests.
  it("keeps a 2025-11-25 session's logging level and its end across a restart of the Worker and its objects", async () => {
    const sessionId = await initialize(second.url, {});
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    const logged = async (url: string, id: number) => {
      const call = await post(
        url,
        { jsonrpc: "2.0", id, method: "tools/call", params: { name: "test_tool_with_logging", arguments: {} } },
        headers,
      );
      expect(answerOf(call, id)?.result).toMatchObject({ content: [{ type: "text", text: "Logging test completed" }] });
      return call.messages.filter((m) => m.method === "notifications/message").length;
    };
    expect(await logged(second.url, 2)).toBe(3); // "info" until the client sets another level
    const set = await post(second.url, { jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "error" } }, headers);
    expect(answerOf(set, 3)?.result).toEqual({});
    expect(await logged(second.url, 4)).toBe(0);

    second = await restart(second);
    expect(await logged(second.url, 5)).toBe(0);
    await post(second.url, { jsonrpc: "2.0", id: 6, method: "logging/setLevel", params: { level: "debug" } }, headers);
    expect(await logged(second.url, 7)).toBe(3);
    expect((await fetch(`${second.url}/mcp`, { method: "DELETE", headers })).status).toBe(200);

    second = await restart(second);
    const after = await post(second.url, { jsonrpc: "2.0", id: 8, method: "tools/list", params: {} }, headers);
    expect(after.status).toBe(404);
    expect(after.messages[0]).toMatchObject({ error: { code: -32001 } });
    expect((await fetch(`${second.url}/mcp`, { method: "DELETE", headers })).status).toBe(404);
  }, 180_000);
});
