/**
 * /mcp keeps no protocol state in an isolate: a client's requests spread over two Workers (two `wrangler
 * dev` processes on one state, started one after another, with the same SIGNING_SECRET) are served as if
 * one Worker answered them all. A 2025-11-25 client initializes at the first and lists and calls tools at
 * the second; a 2026-07-28 client discovers at one, and a call that asks the user for input (a Multi
 * Round-Trip Request) gets its question from one Worker and finishes at the other. An id or a request
 * state this deployment did not sign is refused.
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

type Rpc = { status: number; headers: Headers; messages: Record<string, unknown>[] };

/** POSTs one JSON-RPC message; the answer's messages whether it came as JSON or as an SSE stream. */
async function post(url: string, message: unknown, headers: Record<string, string> = {}): Promise<Rpc> {
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
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

beforeAll(async () => {
  const elicitation = await readFile(path.join(REPO_ROOT, "test", "mcp", "conformance", "tools", "test_elicitation.ts"), "utf8");
  project = await copyProject({ tools: { "echoTool.ts": plainToolSource("echoTool", "echoed"), "test_elicitation.ts": elicitation } });
  state = await mkdtemp(path.join(tmpdir(), "mcp-isolates-"));
  const options = {
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
});
