/**
 * The Worker's /mcp endpoint driven by the official SDK client (Streamable HTTP), through SELF.fetch or,
 * for API_TOKEN, the app with a token in its env.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { app } from "../../../src/http/app.ts";
import { MCP_SESSION_LIFETIME_MS, openSessionId } from "../../../src/mcp/server/mcp-sessions.ts";
import { seal, sealingKeyOf } from "../../../src/mcp/signing.ts";

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;
const clients: Client[] = [];

/** Without API_TOKEN only a local Worker (LOCAL_DEV) serves /mcp, as every operator route. */
const local: FetchLike = async (url, init) => app.fetch(new Request(url, init), { ...env, LOCAL_DEV: "true" });

async function connect(fetchImpl: FetchLike = local, headers: Record<string, string> = {}, url = "http://localhost/mcp"): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchImpl, requestInit: { headers } }));
  clients.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const textOf = (result: object) =>
  ((result as { content?: unknown }).content as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");

describe("the /mcp server", () => {
  it("lists the bundled tools with their JSON Schemas, leaving out session-only writeTool", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["getTime", "getWeather", "slowEcho", "listTools"]));
    expect(names).not.toContain("writeTool");
    expect(tools.find((t) => t.name === "slowEcho")).toMatchObject({
      title: "Slow Echo",
      inputSchema: { type: "object", required: ["text"] },
    });
  });

  it("runs a call and sends the tool's partial results as progress notifications", async () => {
    const client = await connect();
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool({ name: "slowEcho", arguments: { text: "hi", ms: 30 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toBe("echo: hi");
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress[2]!.message).toBe('{"step":3}');
  });

  it("validates arguments with the same pipeline as a session: a missing field is an error result", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "slowEcho", arguments: { ms: 1 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("text: required field is missing");
  });

  it("answers a tool that throws, and an unknown tool, with error results", async () => {
    const client = await connect();
    const boom = await client.callTool({ name: "boom", arguments: {} });
    expect([boom.isError, textOf(boom)]).toEqual([true, "boom went the tool"]);
    const unknown = await client.callTool({ name: "noSuchTool", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('Tool "noSuchTool" not found');
  });

  it("cuts an oversized result to the configured limit, with a note", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "hugeOutput", arguments: { chars: 300_000 } });
    const text = textOf(result);
    expect(text.length).toBeLessThan(101_000);
    expect(text).toMatch(/truncated|cut/i);
  });

  it("needs the API token as a bearer when API_TOKEN is set", async () => {
    const guarded: FetchLike = async (url, init) => app.fetch(new Request(url, init), { ...env, API_TOKEN: "mcp-secret" });
    await expect(connect(guarded)).rejects.toThrow();
    const denied = await guarded("http://edge.test/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(denied.status).toBe(401);
    const client = await connect(guarded, { authorization: "Bearer mcp-secret" }, "http://edge.test/mcp");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("refuses a deployed Worker's /mcp to everyone while API_TOKEN is unset", async () => {
    const res = await SELF.fetch("http://edge.test/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(res.status).toBe(403);
  });

  it("keeps a session's level in its object, erases it when the id expires, and refuses an expired id", async () => {
    const client = await connect();
    const transport = (client as unknown as { _transport: StreamableHTTPClientTransport })._transport;
    await client.setLoggingLevel("error");
    const key = await sealingKeyOf(env);
    const sealed = (await openSessionId(key, transport.sessionId!))!;
    const stub = env.MCP_SESSION.get(env.MCP_SESSION.idFromName(sealed.nonce));
    await runInDurableObject(stub, async (_object, state) => {
      expect(await state.storage.get("level")).toBe("error");
      expect(await state.storage.getAlarm()).toBe(sealed.issued! + MCP_SESSION_LIFETIME_MS);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await runInDurableObject(stub, async (_object, state) => {
      expect(await state.storage.list()).toEqual(new Map());
    });

    const expired = await seal(key, "mcp-session", { ...sealed, issued: Date.now() - MCP_SESSION_LIFETIME_MS - 1 });
    const res = await local("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": expired,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(404);
  });
});
