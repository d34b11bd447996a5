import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/http/app.ts";

type Listing = { mcp: { server: string; requireApproval: unknown; tools?: { name: string; tool: string }[]; error?: string }[] };

async function listTools(headers: Record<string, string> = {}, overrides: Record<string, string> = {}): Promise<Listing> {
  const res = await app.fetch(new Request("http://edge.test/v1/tools", { headers }), { ...env, ...overrides });
  expect(res.status).toBe(200);
  return res.json();
}

describe("GET /v1/tools and the MCP servers", () => {
  it("lists each configured server's tools under the names sessions give them", async () => {
    const { mcp } = await listTools();
    const mock = mcp.find((s) => s.server === "mock")!;
    expect(mock.tools!.map((t) => t.name)).toEqual(expect.arrayContaining(["mock_echo", "mock_clock", "mock_area"]));
    expect(mock.tools!.find((t) => t.name === "mock_echo")!.tool).toBe("echo");
    expect(mcp.find((s) => s.server === "gated")!.requireApproval).toBe(true);
  });

  it("shows an unreachable server as an error without its address to anyone but the operator", async () => {
    const anonymous = (await listTools({}, { API_TOKEN: "op-token" })).mcp.find((s) => s.server === "dead")!;
    expect(anonymous).toEqual({ server: "dead", requireApproval: false, error: "unreachable" });
    const operator = (await listTools({ authorization: "Bearer op-token" }, { API_TOKEN: "op-token" })).mcp.find(
      (s) => s.server === "dead",
    )!;
    expect(operator.error).toContain("127.0.0.1:9");
    expect(JSON.stringify(await listTools())).not.toContain("secret-1");
  });

  it("names a malformed MCP_SERVERS instead of failing the listing", async () => {
    const res = await app.fetch(new Request("http://edge.test/v1/tools", { headers: { authorization: "Bearer op" } }), {
      ...env,
      API_TOKEN: "op",
      MCP_SERVERS: "[oops",
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { mcp: unknown[]; mcpError: string };
    expect(body.mcp).toEqual([]);
    expect(body.mcpError).toContain("MCP_SERVERS is not valid JSON");
  });
});
