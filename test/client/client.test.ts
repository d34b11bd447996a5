import { afterEach, describe, expect, it } from "vitest";
import { ApiClientError, createClient } from "../../src/client/index.ts";
import { startTestServer, type Handler, type TestServer } from "./support.ts";

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fake API answering every request with `status` and `body` (JSON unless a string or null). */
async function answer(status: number, body: unknown, headers: Record<string, string> = {}): Promise<TestServer> {
  const handler: Handler = (_req, res) => {
    if (body === null) {
      res.writeHead(status, headers);
      return void res.end();
    }
    res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json", ...headers });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
  server = await startTestServer(handler);
  return server;
}

describe("createClient", () => {
  it("creates a session with the API token and the given options, returning a handle with its id and key", async () => {
    const { url, requests } = await answer(201, { id: "s_1", key: "sk_1" });
    const session = await createClient({ baseUrl: `${url}/`, apiToken: "tok" }).createSession({ requireApproval: ["*"] });
    expect(session).toMatchObject({ id: "s_1", key: "sk_1" });
    expect(requests[0]).toMatchObject({ method: "POST", url: "/v1/sessions", authorization: "Bearer tok" });
    expect(JSON.parse(requests[0]!.body)).toEqual({ requireApproval: ["*"] });
  });

  it("sends a signed-in user's token (or what a function returns) on creation, the list and the memory calls", async () => {
    const { url, requests } = await answer(200, { id: "s_1", key: "sk_1", sessions: [], memories: [] });
    let n = 0;
    const client = createClient({ baseUrl: url, apiToken: "tok", userToken: () => `jwt-${++n}` });
    const session = await client.createSession();
    await client.listSessions({ limit: 5, before: "123.s_9" });
    await client.memories({ query: "tea" });
    await client.deleteMemory("mem_1");
    await client.deleteSession("s_2");
    await session.snapshot();
    expect(requests.map((r) => [r.method, r.url, r.authorization])).toEqual([
      ["POST", "/v1/sessions", "Bearer jwt-1"],
      ["GET", "/v1/sessions?limit=5&before=123.s_9", "Bearer jwt-2"],
      ["GET", "/v1/memories?query=tea", "Bearer jwt-3"],
      ["DELETE", "/v1/memories/mem_1", "Bearer jwt-4"],
      ["DELETE", "/v1/sessions/s_2", "Bearer jwt-5"],
      ["GET", "/v1/sessions/s_1", "Bearer sk_1"],
    ]);
    await expect(createClient({ baseUrl: url }).listSessions()).rejects.toMatchObject({ code: "no_user_token" });
  });

  it("lists tools with the API token", async () => {
    const tools = { bundled: [{ name: "getTime", status: "bundled" }] };
    const { url, requests } = await answer(200, tools);
    expect(await createClient({ baseUrl: url, apiToken: "tok" }).listTools()).toEqual(tools);
    expect(requests[0]).toMatchObject({ method: "GET", url: "/v1/tools", authorization: "Bearer tok" });
  });

  it("sends session calls to their routes with the session key and JSON bodies", async () => {
    const { url, requests } = await answer(200, {});
    const session = createClient({ baseUrl: url }).session("s/1", "sk_1");
    await session.send("hi");
    await session.followUp([{ type: "text", text: "more" }]);
    await session.abort();
    await session.approve("call 1");
    await session.reject("call_2", "not now");
    await session.snapshot();
    await session.continue();
    await session.shutdown();
    expect(requests.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      'POST /v1/sessions/s%2F1/messages {"content":"hi"}',
      'POST /v1/sessions/s%2F1/follow-ups {"content":[{"type":"text","text":"more"}]}',
      "POST /v1/sessions/s%2F1/abort ",
      'POST /v1/sessions/s%2F1/tool-calls/call%201/approval {"approve":true}',
      'POST /v1/sessions/s%2F1/tool-calls/call_2/approval {"approve":false,"reason":"not now"}',
      "GET /v1/sessions/s%2F1 ",
      "POST /v1/sessions/s%2F1/continue ",
      "DELETE /v1/sessions/s%2F1 ",
    ]);
    expect(new Set(requests.map((r) => r.authorization))).toEqual(new Set(["Bearer sk_1"]));
  });

  it("asks takeResponse to wait and returns the message", async () => {
    const message = { role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop", timestamp: 1 };
    const { url, requests } = await answer(200, message);
    expect(await createClient({ baseUrl: url }).session("s_1", "k").takeResponse(1500)).toEqual(message);
    expect(requests[0]?.url).toBe("/v1/sessions/s_1/responses/next?waitMs=1500");
  });

  it("returns null from takeResponse when the server answers 204", async () => {
    const { url } = await answer(204, null);
    expect(await createClient({ baseUrl: url }).session("s_1", "k").takeResponse()).toBeNull();
  });

  it("throws ApiClientError with the server's status, code and message", async () => {
    const { url } = await answer(429, { error: { code: "queue_full", message: "Input queue is full" } }, { "retry-after": "1" });
    const error: unknown = await createClient({ baseUrl: url })
      .session("s_1", "k")
      .send("x")
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiClientError);
    expect(error).toMatchObject({ status: 429, code: "queue_full", message: "Input queue is full", retryAfterSeconds: 1 });
  });

  it("derives a code from the status when the error body is not the API's", async () => {
    const { url } = await answer(502, "Bad Gateway");
    const error: unknown = await createClient({ baseUrl: url })
      .session("s_1", "k")
      .snapshot()
      .catch((err: unknown) => err);
    expect(error).toMatchObject({ status: 502, code: "internal", message: "HTTP 502 Bad Gateway" });
  });

  it("reports an unreachable server as ApiClientError with status 0", async () => {
    const { url } = await answer(200, {});
    await server!.close();
    const error: unknown = await createClient({ baseUrl: url })
      .listTools()
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiClientError);
    expect(error).toMatchObject({ status: 0, code: "network_error" });
  });

  it("uses the fetch it is given, called without a receiver", async () => {
    const calls: string[] = [];
    const fetchImpl = function (this: unknown, input: string | URL | Request): Promise<Response> {
      calls.push(`${String(input)} this=${String(this)}`);
      return Promise.resolve(Response.json({ bundled: [] }));
    };
    await createClient({ baseUrl: "http://example.invalid", fetch: fetchImpl as typeof fetch }).listTools();
    expect(calls).toEqual(["http://example.invalid/v1/tools this=undefined"]);
  });
});
