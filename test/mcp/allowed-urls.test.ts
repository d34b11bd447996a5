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

  it("lets an entry name any port with :*, still matching scheme, host and path exactly", () => {
    const allowed = readAllowedUrls({ MCP_ALLOWED_URLS: "http://localhost:*/mcp" });
    expect(allowed).toEqual([{ protocol: "http:", host: "localhost", path: "/mcp", anyPort: true }]);
    expect(isAllowedMcpUrl("http://localhost:41234/mcp", allowed)).toBe(true);
    expect(isAllowedMcpUrl("http://localhost:3000/mcp/x", allowed)).toBe(true);
    expect(isAllowedMcpUrl("http://localhost/mcp", allowed)).toBe(true); // the default port is a port too
    for (const url of [
      "https://localhost:41234/mcp", // another scheme
      "http://127.0.0.1:41234/mcp", // another host
      "http://localhost.evil.example:41234/mcp",
      "http://localhost:41234@evil.example/mcp",
      "http://evil.example:41234/mcp?localhost:1",
      "http://user:pw@localhost:41234/mcp",
      "http://localhost:41234/mcpx", // the path still on segment boundaries
      "http://localhost:41234/",
    ]) {
      expect(isAllowedMcpUrl(url, allowed), url).toBe(false);
    }
  });

  it("admits no other port without the pattern, and takes a pattern only in the port's place", () => {
    expect(isAllowedMcpUrl("http://localhost:41234/mcp", readAllowedUrls({ MCP_ALLOWED_URLS: "http://localhost:3000/mcp" }))).toBe(false);
    for (const entry of [
      "http://*:*/",
      "http://*/",
      "http://localhost:*:80/",
      "http://localhost:3*/",
      "ftp://localhost:*/",
      "http://u@localhost:*/",
    ]) {
      expect(readAllowedUrls({ MCP_ALLOWED_URLS: entry }), entry).toEqual([]);
    }
    expect(isAllowedMcpUrl("http://localhost:1/mcp", readAllowedUrls({ MCP_ALLOWED_URLS: "http://localhost:*" }))).toBe(true);
  });

  it("leaves out entries that are not http(s) URLs", () => {
    expect(readAllowedUrls({ MCP_ALLOWED_URLS: "ftp://x.example/, nonsense, https://ok.example/" })).toEqual([
      { protocol: "https:", host: "ok.example", path: "/" },
    ]);
  });
});
