import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { McpAuthRequiredError, McpConnection } from "../../src/mcp/mcp-connection.ts";

/** A raw Streamable HTTP endpoint: answers initialize, then 401 for `refuse` (or for everything). */
async function startServer(refuse: "everything" | "tools/list"): Promise<{ url: string; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as { id?: number; method: string }) : undefined;
    requests.push(`${req.method} ${body?.method ?? ""}`.trim());
    if (refuse === "everything" || body?.method === "tools/list" || req.method === "GET") {
      res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' }).end();
      return;
    }
    if (body?.method === "initialize") {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "t", version: "1" } } }),
      );
      return;
    }
    res.writeHead(202).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, requests, server };
}

let open: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (open ? open.close(() => resolve()) : resolve())));

describe("an MCP server that answers 401", () => {
  it("is refused naming the server, without falling back to the HTTP+SSE transport", async () => {
    const { url, requests, server } = await startServer("everything");
    open = server;
    const connection = new McpConnection({ name: "locked", url }, () => undefined);
    const err = await connection.listTools().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpAuthRequiredError);
    expect((err as Error).message).toContain('MCP server "locked"');
    // The legacy transport opens with a GET on the URL: none was sent.
    expect(requests).toEqual(["POST initialize"]);
    await connection.close();
  });

  it("names the server when the 401 comes on tools/list after connecting", async () => {
    const { url, server } = await startServer("tools/list");
    open = server;
    const connection = new McpConnection({ name: "later", url }, () => undefined);
    const err = await connection.listTools().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpAuthRequiredError);
    expect((err as Error).message).toContain('MCP server "later"');
    await connection.close();
  });
});
