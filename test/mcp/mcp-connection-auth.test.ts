import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { McpAuthFailedError, McpAuthRequiredError, McpConnection } from "../../src/mcp/client/mcp-connection.ts";
import { describeMcpServers, forgetMcpListing } from "../../src/mcp/client/mcp-catalog.ts";
import { MemoryOAuthRecords } from "../../src/mcp/oauth/memory-oauth-records.ts";
import { localVault } from "../../src/mcp/oauth/oauth-completion.ts";
import { McpOAuthProvider } from "../../src/mcp/oauth/oauth-provider.ts";

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
        JSON.stringify({
          jsonrpc: "2.0",
          id: body.id,
          result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "t", version: "1" } },
        }),
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
    // The first request (server/discover) was refused: neither the handshake nor the legacy transport
    // (which opens with a GET on the URL) was tried.
    expect(requests).toEqual(["POST server/discover"]);
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

/** A server that asks for OAuth and whose protected-resource metadata names another resource. */
async function startMismatchedServer(): Promise<{ url: string; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === "/.well-known/oauth-protected-resource/mcp") {
      // Metadata for another resource: the client must not send this server's tokens there, nor go on.
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ resource: "https://elsewhere.example/mcp", authorization_servers: [base] }));
      return;
    }
    if (req.url === "/.well-known/oauth-authorization-server") {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
        }),
      );
      return;
    }
    res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, requests, server };
}

describe("an MCP server whose OAuth flow fails before a user is asked", () => {
  it("is refused as not authorizable, naming the server, its reason only for the operator, and no fallback", async () => {
    const { url, requests, server } = await startMismatchedServer();
    open = server;
    const config = { name: "mismatched", url };
    const auth = new McpOAuthProvider(config, {
      vault: localVault(new MemoryOAuthRecords()),
      redirectUrl: "https://w.example/v1/mcp/oauth/callback",
      stateRoute: "w",
      sessionId: "s",
    });
    const connection = new McpConnection(config, () => undefined, auth);
    const err = await connection.listTools().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpAuthFailedError);
    expect((err as McpAuthFailedError).message).toBe('MCP server "mismatched" could not be authorized');
    expect((err as McpAuthFailedError).operatorMessage).toContain("elsewhere.example");
    expect(auth.authorizationUrl).toBeUndefined();
    expect(requests.filter((r) => r === "GET /mcp")).toEqual([]); // the legacy transport opens with a GET
    await connection.close();
  });

  it("is listed in the registry as not authorizable, with the reason only for the operator", async () => {
    const { url, server } = await startMismatchedServer();
    open = server;
    const raw = JSON.stringify([{ name: "mismatched", url }]);
    const credentials = { vault: localVault(new MemoryOAuthRecords()), origin: "https://w.example" };
    forgetMcpListing();
    const anonymous = await describeMcpServers(raw, false, credentials);
    expect(anonymous.servers).toEqual([{ server: "mismatched", requireApproval: false, error: "could not be authorized" }]);
    const operator = await describeMcpServers(raw, true, credentials);
    expect(operator.servers[0]).toMatchObject({ error: expect.stringContaining("elsewhere.example") });
  });
});
