/**
 * A reopened conversation whose compaction happened before the newest page (docs/compaction.md): the
 * marker waits at the top, and moves to its place when the older page is loaded. The scripted mock LLM
 * with MAX_CONTEXT_TOKENS 12,000: one long first turn, then a turn of sixty tool calls that compacts the
 * first (its summary call is the mock's second reply), so the summary's place, after message 2, is far
 * outside the snapshot's newest 50 of 65 messages. A real wrangler dev, a real Chromium.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { openWatchedPage } from "./support/browser.ts";
import { ChatPage, UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { startStack, type Stack } from "./support/stack.ts";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ vars: { MAX_CONTEXT_TOKENS: "12000" } });
});

afterAll(async () => {
  await stack?.stop();
});

it("keeps a reopened conversation's compaction marker at the top until its page is loaded, then puts it in place", async () => {
  const calls = Array.from({ length: 60 }, (_, i) => ({ name: "getTime", arguments: { city: i % 2 ? "Tokyo" : "Paris" } }));
  stack.llm.enqueue(
    { text: "Noted." },
    { text: "The user shared a long note about the harbour." },
    { toolCalls: calls },
    { text: "All sixty clocks read." },
  );
  const watched = await openWatchedPage(stack.browser);
  const chat = new ChatPage(watched.page);
  await chat.open(stack.url);
  await chat.send(`A long note: ${"the harbour at dawn ".repeat(2_000)}`);
  await chat.waitForRunEnds(1);
  await chat.send("Sixty clocks, please");
  await chat.waitForRunEnds(2);
  // Live, the marker came when the second turn compacted the first.
  const marker = watched.page.locator(".compaction-marker");
  expect(await marker.locator("summary").textContent()).toMatch(/^The model now sees a summary of the first 2 messages/);

  await chat.reload();
  await marker.first().waitFor({ timeout: UI_TIMEOUT_MS });
  expect(await marker.count()).toBe(1);
  // Its place is in the older page: it waits first in the list, above the newest page.
  expect(await chat.userBubbles.count()).toBe(0);
  expect(await watched.page.locator("#messages > :first-child").getAttribute("class")).toContain("compaction-marker");

  await watched.page.locator("#messages").evaluate((list) => list.parentElement!.scrollTo({ top: 0 }));
  await expect.poll(() => chat.userBubbles.count(), { timeout: UI_TIMEOUT_MS }).toBe(2);
  // Loaded: after the first turn (its question and answer), before the second turn's question.
  expect(await watched.page.locator(".compaction-marker ~ .bubble-user .bubble-text").allTextContents()).toEqual(["Sixty clocks, please"]);
  expect(await watched.page.locator("#messages > :first-child").getAttribute("data-role")).toBe("user");
  expect(await watched.page.locator(".compaction-marker").count()).toBe(1);
  await marker.locator("summary").click();
  expect(await marker.locator(".compaction-text").textContent()).toBe("The user shared a long note about the harbour.");
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});
