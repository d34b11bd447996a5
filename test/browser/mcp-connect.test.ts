/**
 * The page's "Connect" link for an MCP server behind OAuth, against a real `wrangler dev` whose
 * MCP_SERVERS names the SDK-built OAuth server on 127.0.0.1: the link opens the authorization, the
 * server approves and returns to the Worker's callback, and the server's tools reach the same page.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startOAuthMcpServer } from "../support/oauth-mcp-server.ts";
import { openWatchedPage, screenshot } from "./support/browser.ts";
import { ChatPage, UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { startStack, type Stack } from "./support/stack.ts";

let stack: Stack;
let oauth: Awaited<ReturnType<typeof startOAuthMcpServer>>;

beforeAll(async () => {
  oauth = await startOAuthMcpServer();
  stack = await startStack({ vars: { MCP_SERVERS: JSON.stringify([{ name: "secure", url: `${oauth.url}/mcp` }]) } });
});

afterAll(async () => {
  await stack?.stop();
  await oauth?.close();
});

it("shows a Connect link; after authorizing in its tab the server's tools appear in the same session", async () => {
  const watched = await openWatchedPage(stack.browser);
  try {
    const chat = new ChatPage(watched.page);
    await chat.open(stack.url);
    const link = watched.page.locator("a.connect-link");
    await link.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    expect(await link.getAttribute("href")).toMatch(new RegExp(`^${oauth.url}/authorize\\?`));
    expect(await watched.page.locator('#tools .tool-entry[data-tool-name="secure_whoami"]').count()).toBe(0);
    const sessionId = await watched.page.locator("#session-id").textContent();
    await screenshot(watched.page, "mcp-connect-link");

    const [tab] = await Promise.all([watched.context.waitForEvent("page"), link.click()]);
    await tab.waitForLoadState();
    await tab.getByText("is connected").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(new URL(tab.url()).pathname).toBe("/v1/mcp/oauth/callback");
    await tab.close();

    await watched.page.bringToFront();
    await watched.page.evaluate("window.dispatchEvent(new Event('focus'))"); // headless focus is not reliable
    await watched.page.locator('#tools .tool-entry[data-tool-name="secure_whoami"]').waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    expect(await watched.page.locator("#session-id").textContent()).toBe(sessionId);
    expect(watched.errors).toEqual([]);
  } finally {
    await watched.context.close();
  }
});
