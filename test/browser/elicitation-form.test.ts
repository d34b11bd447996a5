/**
 * The page renders an MCP server's question (mcpElicitation) as a form and answers it, against a real
 * `wrangler dev` whose MCP_SERVERS names a real SDK McpServer on 127.0.0.1 that asks
 * (test/support/eliciting-mcp-server.ts): a missing required field shows the session's 400, then a filled
 * form reaches the server.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startElicitingMcpServer, type ReceivedAnswer } from "../support/eliciting-mcp-server.ts";
import { openWatchedPage, screenshot } from "./support/browser.ts";
import { ChatPage, UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { startStack, type Stack } from "./support/stack.ts";

let stack: Stack;
let asker: Awaited<ReturnType<typeof startElicitingMcpServer>>;

beforeAll(async () => {
  asker = await startElicitingMcpServer();
  stack = await startStack({ vars: { MCP_SERVERS: JSON.stringify([{ name: "asker", url: `${asker.url}/mcp` }]) } });
});

afterAll(async () => {
  await stack?.stop();
  await asker?.close();
});

it("shows the server's question as a form, shows a refused answer's reason, and sends the filled form", async () => {
  const watched = await openWatchedPage(stack.browser);
  try {
    const chat = new ChatPage(watched.page);
    stack.llm.enqueue({ toolCalls: [{ name: "asker_signup", arguments: {} }] }, { text: "You are signed up." });
    await chat.open(stack.url);
    await watched.page.locator('#tools .tool-entry[data-tool-name="asker_signup"]').waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    await chat.send("Sign me up");
    const form = watched.page.getByRole("form", { name: "Question from asker" });
    await form.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    expect(await form.locator(".elicitation-message").textContent()).toBe("asker asks: Please sign up");
    expect(await form.locator(".elicitation-field > span").allTextContents()).toEqual(["Name *", "Age", "Plan *", "Newsletter"]);

    await form.getByLabel("Name *").fill("Ada");
    await form.getByRole("button", { name: "Submit" }).click();
    await expect.poll(() => form.locator(".elicitation-status").textContent(), { timeout: UI_TIMEOUT_MS }).toContain("plan");
    await screenshot(watched.page, "elicitation-refused");

    await form.getByLabel("Plan *").selectOption({ label: "pro" });
    await form.getByLabel("Age").fill("36");
    await form.getByRole("button", { name: "Submit" }).click();
    await form.getByText("Answer sent.").waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    await chat.waitForRunEnds(1);
    const answers = (await (await fetch(`${asker.url}/answers`)).json()) as ReceivedAnswer[];
    expect(answers).toEqual([{ action: "accept", content: { name: "Ada", age: 36, plan: "pro", newsletter: false } }]);
    expect(watched.errors).toEqual([]);
  } finally {
    await watched.context.close();
  }
});
