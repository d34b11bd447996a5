/**
 * The page shows a sub-agent call (the bundled `researcher`) as one card holding the child session's
 * tool calls and text, built from the child events the parent's stream relays. One mock LLM queue
 * serves parent and child in turn: parent → researcher, child → getTime, child → text, parent → text.
 */
import { describe, expect, it } from "vitest";
import { SESSION_ID_PATTERN } from "../../src/signing/session-ids.ts";
import { screenshot } from "./support/browser.ts";
import { UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { useChatPages } from "./support/chat-pages.ts";

const page = useChatPages();

describe("a sub-agent call on the chat page", () => {
  it("is a card with the child's tool calls and text inside it", async () => {
    page.stack.llm.enqueue(
      { toolCalls: [{ name: "researcher", arguments: { task: "What time is it in Tokyo?" } }] },
      { toolCalls: [{ name: "getTime", arguments: { city: "Tokyo" } }] },
      { text: "It is evening in Tokyo (from getTime)." },
      { text: "The researcher says it is evening in Tokyo." },
    );
    await page.chat.open(page.stack.url);
    await page.chat.send("Ask the researcher about Tokyo");
    await page.chat.waitForRunEnds(1);

    const card = page.chat.cardInState("researcher", "done");
    await card.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    const inner = card.locator(".sub-agent");
    expect(await inner.getAttribute("data-session-id")).toMatch(SESSION_ID_PATTERN);
    await inner.locator('.tool-card[data-tool-name="getTime"][data-state="done"]').waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    expect(await inner.locator(".tool-card .tool-result pre").textContent()).toContain("Tokyo");
    expect(await inner.locator(".sub-agent-text").allTextContents()).toEqual(["It is evening in Tokyo (from getTime)."]);
    // The child's events are not shown as raw partial results of the parent's card.
    expect(await card.locator(":scope > .tool-partials > .tool-partial").count()).toBe(0);
    expect(await card.locator(":scope > .tool-result pre").textContent()).toBe("It is evening in Tokyo (from getTime).");
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([
      "The researcher says it is evening in Tokyo.",
    ]);
    await screenshot(page.watched.page, "sub-agent-card");
  });
});
