import { describe, expect, it } from "vitest";
import { isAllowedMcpUrl, readAllowedUrls } from "../../src/mcp/client/allowed-urls.ts";

describe("MCP_ALLOWED_URLS", () => {
  it("allows nothing when unset or blank", () => {
    expect(isAllowedMcpUrl("https://a.example/mcp", readAllowedUrls({}))).toBe(false);
    expect(isAllowedMcpUrl("https://a.example/mcp", readAllowedUrls({ MCP_ALLOWED_URLS: " , " }))).toBe(false);
  });

  it("matches scheme, host and port exactly, never as text", () => {
    const allowed = readAllowedUrls({ MCP_ALLOWED_URLS: "https://a.example/" });
    expect(isAllowedMcpUrl("https://a.example/mcp", allowed)).toBe(true);
    expect(isAllowedMcpUrl("https://A.EXAMPLE/mcp", allowed)).toBe(true); // hosts compare parsed
    for (const url of [
      "https://a.example.evil/",
      "https://a.example.evil/mcp",
      "https://a.example@evil.example/",
      "http://a.example/mcp",
      "https://a.example:8443/mcp",
      "https://user:pw@a.example/mcp",
    ]) {
      expect(isAllowedMcpUrl(url, allowed), url).toBe(false);
    }
  });

  it("matches paths on segment boundaries", () => {
    const allowed = readAllowedUrls({ MCP_ALLOWED_URLS: "https://tools.example/team, https://b.example/mcp/" });
    expect(isAllowedMcpUrl("https://tools.example/team", allowed)).toBe(true);
    expect(isAllowedMcpUrl("https://tools.example/team/linear/mcp", allowed)).toBe(true);
    expect(isAllowedMcpUrl("https://tools.example/teammate/mcp", allowed)).toBe(false);
    expect(isAllowedMcpUrl("https://b.example/mcp/x", allowed)).toBe(true);
    expect(isAllowedMcpUrl("https://b.example/mcp", allowed)).toBe(false);
    expect(isAllowedMcpUrl("https://tools.example/team/../admin", allowed)).toBe(false); // resolved before matching
  });

  it("leaves out entries that are not http(s) URLs", () => {
    expect(readAllowedUrls({ MCP_ALLOWED_URLS: "ftp://x.example/, nonsense, https://ok.example/" })).toEqual([
      { protocol: "https:", host: "ok.example", path: "/" },
    ]);
  });
});
