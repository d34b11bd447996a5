import { describe, expect, it } from "vitest";
import { parseMcpServers, selectMcpServers } from "../../src/mcp/client/servers-config.ts";

describe("MCP_SERVERS", () => {
  it("means no servers when unset or blank", () => {
    expect(parseMcpServers(undefined)).toEqual({ ok: true, servers: [] });
    expect(parseMcpServers("  ")).toEqual({ ok: true, servers: [] });
  });

  it("accepts name, url, headers, requireApproval and timeoutMs", () => {
    const raw = JSON.stringify([
      {
        name: "docs",
        url: "https://mcp.example.com/mcp",
        headers: { authorization: "Bearer x" },
        requireApproval: ["write"],
        timeoutMs: 5000,
      },
    ]);
    expect(parseMcpServers(raw)).toEqual({ ok: true, servers: JSON.parse(raw) });
  });

  it("names the position of the JSON problem when the value is not JSON", () => {
    const result = parseMcpServers("[{name:");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toBe("MCP_SERVERS is not valid JSON: the error is at position 2 (line 1, column 3)");
  });

  it("never quotes the text of a malformed value, which may hold a header's token", () => {
    const secret = "sk-live-4f9a8b7c6d5e";
    const raws = [
      `[{"name":"docs","url":"https://x","headers":{"authorization":"Bearer ${secret}"}`,
      `[{"name":"docs","url":"https://x","headers":{"authorization":Bearer ${secret}}}]`,
      `[{"name":"docs","headers":{"authorization":"Bearer ${secret}"},}]`,
      `[{"name":"docs","url":"https://x","headers":{"authorization":"Bearer ${secret}"}}]x`,
      `[{"name":"docs","url":"https://x","headers":{"authorization":${secret.length}}}]`,
      `[{"name":"docs","url":"ftp://${secret}","headers":{"authorization":"${secret}"}}]`,
    ];
    for (const raw of raws) {
      const result = parseMcpServers(raw);
      expect(result.ok, raw).toBe(false);
      expect(result.ok ? "" : result.message, raw).not.toMatch(/sk-live|4f9a8b/);
    }
    const multi = parseMcpServers(`[\n  {"name": "a",\n   "url": "https://x" oops}]`);
    expect(multi.ok ? "" : multi.message).toContain("(line 3, column 23)");
  });

  it("names each invalid field by its position", () => {
    const result = parseMcpServers(
      JSON.stringify([
        { name: "ok", url: "ftp://x" },
        { name: "1bad", url: "https://x" },
        { name: "ok", url: "https://y", extra: 1 },
      ]),
    );
    expect(result.ok).toBe(false);
    const message = result.ok ? "" : result.message;
    expect(message).toContain("[0].url: must be an http(s) URL");
    expect(message).toContain("[1].name:");
    expect(message).toMatch(/\[2\].*extra/);
  });

  it("refuses two servers with the same name", () => {
    const result = parseMcpServers(
      JSON.stringify([
        { name: "a", url: "https://x" },
        { name: "a", url: "https://y" },
      ]),
    );
    expect(result.ok ? "" : result.message).toContain('duplicate server name "a"');
  });

  it("gives a session every server by default, the named ones when asked, and lists unknown names", () => {
    const servers = [
      { name: "a", url: "https://a" },
      { name: "b", url: "https://b" },
    ];
    expect(selectMcpServers(servers, undefined)).toEqual({ ok: true, servers });
    expect(selectMcpServers(servers, ["b"])).toEqual({ ok: true, servers: [servers[1]] });
    expect(selectMcpServers(servers, ["b", "c", "c"])).toEqual({ ok: false, unknown: ["c"] });
  });
});
