/**
 * The page marks where the model's view was compacted (docs/compaction.md) and shows the summary: the
 * offline model (no key) with a small MAX_CONTEXT_TOKENS, so a few long messages compact. A real wrangler
 * dev, a real Chromium; live, and again after a reload (the marker then after the messages it stands for).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium, openWatchedPage, screenshot } from "./support/browser.ts";
import { ChatPage, UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { buildClientBundle } from "./support/stack.ts";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";

let dev: WranglerDev;
let browser: Browser;

beforeAll(async () => {
  await buildClientBundle();
  dev = await startWranglerDev({ vars: { MODEL_PROVIDER: "offline", MAX_CONTEXT_TOKENS: "4000" } });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
});

it("marks the compaction in the conversation and shows the summary, live and after a reload", async () => {
  const watched = await openWatchedPage(browser);
  const chat = new ChatPage(watched.page);
  await chat.open(dev.url);
  const notes = ["alpha", "bravo", "charlie", "delta", "echo"];
  for (const [i, note] of notes.entries()) {
    await chat.send(`Remember ${note}: ${`${note} `.repeat(400)}`);
    await chat.waitForRunEnds(i + 1);
  }
  const marker = watched.page.locator(".compaction-marker");
  await marker.first().waitFor({ timeout: UI_TIMEOUT_MS });
  expect(await marker.first().locator("summary").textContent()).toMatch(/The model now sees a summary of the first \d+ messages/);
  await marker.last().locator("summary").click();
  await expect.poll(() => marker.last().locator(".compaction-text").textContent()).toContain("- User: Remember alpha");
  // Every original message is still shown.
  expect(await chat.userBubbles.count()).toBe(notes.length);
  await screenshot(watched.page, "compaction-marker");

  await chat.reload();
  const restored = watched.page.locator(".compaction-marker");
  await restored.first().waitFor({ timeout: UI_TIMEOUT_MS });
  expect(await restored.count()).toBe(1);
  // The restored marker sits where the model's view was compacted: after the first N messages, which (each
  // turn here a user message and its answer, no tool calls) are the first N / 2 user messages.
  expect(await watched.page.locator(".tool-card").count()).toBe(0);
  const summarized = Number(/first (\d+) messages/.exec((await restored.first().locator("summary").textContent()) ?? "")?.[1]);
  // Bubbles and the marker are siblings in the list: the user bubbles before it are those not after it.
  const usersBefore = notes.length - (await watched.page.locator(".compaction-marker ~ .bubble-user").count());
  expect(usersBefore).toBeGreaterThan(0);
  expect(usersBefore).toBe(summarized / 2);
  await restored.first().locator("summary").click();
  expect(await restored.first().locator(".compaction-text").textContent()).toContain("- User: Remember");
  expect(await chat.userBubbles.count()).toBe(notes.length);
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});
