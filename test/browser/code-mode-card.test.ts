/**
 * Code mode on the page: with CODE_MODE on, the offline model answers "time in Tokyo and Paris" with one
 * runCode program; its card shows the program, the two getTime calls inside it, and what it returned.
 * A real wrangler dev with no OPENAI_API_KEY, a real Chromium.
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
  dev = await startWranglerDev({ vars: { CODE_MODE: "true" } });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
});

it("shows a runCode card with its program, its nested calls inside it, and the result", async () => {
  const watched = await openWatchedPage(browser);
  const chat = new ChatPage(watched.page);
  await chat.open(dev.url);
  await chat.send("What time is it in Tokyo and Paris?");
  const card = chat.cardInState("runCode", "done");
  await card.waitFor({ timeout: UI_TIMEOUT_MS });
  await chat.waitForRunEnds(1);
  expect(await card.locator(".tool-code").textContent()).toContain("tools.getTime");
  const nested = card.locator('.tool-nested > .tool-card[data-tool-name="getTime"][data-state="done"]');
  expect(await nested.count()).toBe(2);
  expect(await card.locator(".program-returned").textContent()).toMatch(/Current time in Tokyo[\s\S]*Current time in Paris/);
  // The nested calls are inside the program's card, not beside it in the conversation.
  expect(await watched.page.locator('#messages > .tool-card[data-tool-name="getTime"]').count()).toBe(0);
  expect((await chat.assistantBubbles.last().textContent()) ?? "").toContain("getTime Paris");
  await screenshot(watched.page, "code-mode-card");
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});
