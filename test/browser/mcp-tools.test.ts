/**
 * The page's tools panel lists a session's tools from remote MCP servers, marked as such, against a real
 * `wrangler dev` whose MCP_SERVERS names a real SDK-built MCP server on 127.0.0.1.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startMockMcpServer } from "../support/mock-mcp-server.ts";
import { openWatchedPage, screenshot } from "./support/browser.ts";
import { ChatPage, UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { startStack, type Stack } from "./support/stack.ts";

let stack: Stack;
let mcp: Awaited<ReturnType<typeof startMockMcpServer>>;

beforeAll(async () => {
  mcp = await startMockMcpServer();
  stack = await startStack({ vars: { MCP_SERVERS: JSON.stringify([{ name: "remote", url: `${mcp.url}/mcp` }]) } });
});

afterAll(async () => {
  await stack?.stop();
  await mcp?.close();
});

it("shows the session's MCP tools in the tools panel, marked MCP with their server", async () => {
  const watched = await openWatchedPage(stack.browser);
  try {
    const chat = new ChatPage(watched.page);
    await chat.open(stack.url);
    const entry = watched.page.locator('#tools .tool-entry[data-tool-name="remote_echo"]');
    await entry.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    expect(await entry.getAttribute("data-status")).toBe("mcp");
    expect(await entry.locator(".badge-mcp").textContent()).toBe("MCP");
    expect(await entry.locator(".badge-mcp").getAttribute("title")).toBe('Tool "echo" of MCP server "remote"');
    expect(await entry.locator(".badge-mcp-server").textContent()).toBe("remote");
    expect(await entry.locator(".badge-session").count()).toBe(1);
    const group = watched.page.locator("#tools .tool-group", { hasText: "From MCP servers" });
    expect(await group.locator(".tool-entry").count()).toBe(6);
    // Bundled tools are not marked as MCP tools.
    expect(await watched.page.locator('#tools .tool-entry[data-tool-name="getTime"] .badge-mcp').count()).toBe(0);
    await screenshot(watched.page, "tools-panel-mcp");
    expect(watched.errors).toEqual([]);
  } finally {
    await watched.context.close();
  }
});
