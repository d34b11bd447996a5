/**
 * SEP-2243's x-mcp-header marks on the client side: which tools are left out, how values are carried,
 * and a connection that calls without having listed learns the marks from the server's refusal (a real
 * HTTP server on 127.0.0.1 that checks the header as a 2026-07-28 server would).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModernMcpClient } from "../../src/mcp/client/modern-client.ts";
import { paramHeadersOf, paramHeaderValues } from "../../src/mcp/client/param-headers.ts";

const schema = (properties: Record<string, unknown>) => ({ type: "object", properties });

describe("x-mcp-header marks", () => {
  it("keeps well-formed marks and refuses malformed ones", () => {
    const ok = paramHeadersOf(schema({ region: { type: "string", "x-mcp-header": "Region" }, q: { type: "string" } }));
    expect(ok).toEqual({ ok: true, headers: new Map([["region", "Region"]]) });
    for (const bad of [
      { v: { type: "string", "x-mcp-header": "" } },
      { v: { type: "string", "x-mcp-header": "My Region" } },
      { v: { type: "string", "x-mcp-header": "Region:1" } },
      { v: { type: "string", "x-mcp-header": "Région" } },
      { v: { type: "number", "x-mcp-header": "Score" } },
      { v: { type: "object", "x-mcp-header": "Data" } },
      { a: { type: "string", "x-mcp-header": "MyField" }, b: { type: "string", "x-mcp-header": "myfield" } },
    ])
      expect(paramHeadersOf(schema(bad)).ok, JSON.stringify(bad)).toBe(false);
  });

  it("carries values as HTTP can: plain printable ASCII, Base64 for the rest, nothing for null", () => {
    const marks = new Map([
      ["a", "A"],
      ["n", "N"],
      ["b", "B"],
      ["u", "U"],
      ["s", "S"],
      ["z", "Z"],
    ]);
    expect(paramHeaderValues(marks, { a: "us west 1", n: 42, b: false, u: "Hello, 世界", s: " padded", z: null })).toEqual({
      "mcp-param-a": "us west 1",
      "mcp-param-n": "42",
      "mcp-param-b": "false",
      "mcp-param-u": `=?base64?${Buffer.from("Hello, 世界").toString("base64")}?=`,
      "mcp-param-s": `=?base64?${Buffer.from(" padded").toString("base64")}?=`,
    });
  });
});

describe("a 2026-07-28 connection that calls before it lists", () => {
  let server: Server;
  let url: string;
  const seen: { method: string; region?: string }[] = [];

  beforeAll(async () => {
    server = createServer(async (req: IncomingMessage, res) => {
      let text = "";
      for await (const chunk of req) text += chunk;
      const message = JSON.parse(text) as { id: number; method: string; params: { arguments?: { region?: string } } };
      const region = req.headers["mcp-param-region"] as string | undefined;
      seen.push({ method: message.method, ...(region !== undefined ? { region } : {}) });
      const reply = (status: number, body: Record<string, unknown>) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...body }));
      };
      if (message.method === "server/discover")
        return reply(200, { result: { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} } } });
      if (message.method === "tools/list")
        return reply(200, {
          result: {
            resultType: "complete",
            tools: [{ name: "route", inputSchema: schema({ region: { type: "string", "x-mcp-header": "Region" } }) }],
          },
        });
      if (region !== message.params.arguments?.region) return reply(400, { error: { code: -32020, message: "Mcp-Param-Region mismatch" } });
      return reply(200, { result: { resultType: "complete", content: [{ type: "text", text: `routed to ${region}` }] } });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("learns the marks from the server's -32020 and sends the call once more with the header", async () => {
    const client = await ModernMcpClient.discover({ url: new URL(url), headers: async () => ({}) });
    expect(client).toBeDefined();
    const result = await client!.callTool("route", { region: "eu-west" }, {});
    expect(result.content).toEqual([{ type: "text", text: "routed to eu-west" }]);
    expect(seen.map((s) => s.method)).toEqual(["server/discover", "tools/call", "tools/list", "tools/call"]);
    expect(seen.at(-1)).toEqual({ method: "tools/call", region: "eu-west" });
    // Known now: the next call carries the header at once.
    await client!.callTool("route", { region: "us-east" }, {});
    expect(seen.slice(4)).toEqual([{ method: "tools/call", region: "us-east" }]);
  });
});
