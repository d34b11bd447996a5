/**
 * The first thing a newcomer sees: `npm start` with no API key serves the page, and the built-in offline
 * model uses a tool and answers. A real wrangler dev with no OPENAI_API_KEY, a real Chromium.
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
  dev = await startWranglerDev();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
});

it("answers a time question with the offline model, showing the getTime card and the answer", async () => {
  const watched = await openWatchedPage(browser);
  const chat = new ChatPage(watched.page);
  await chat.open(dev.url);
  await chat.send("What time is it in Tokyo?");
  await chat.cardInState("getTime", "done").waitFor({ timeout: UI_TIMEOUT_MS });
  await chat.waitForRunEnds(1);
  const answer = (await chat.assistantBubbles.last().textContent()) ?? "";
  expect(answer).toContain("Current time in Tokyo (Asia/Tokyo)");
  await screenshot(watched.page, "offline-model-answer");
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});

it("rolls one die when the message names no count, so the newcomer's cards are all done, none red", async () => {
  const watched = await openWatchedPage(browser);
  const chat = new ChatPage(watched.page);
  await chat.open(dev.url);
  await chat.send("What time is it in Tokyo? Then roll a dice.");
  await chat.cardInState("rollDice", "done").waitFor({ timeout: UI_TIMEOUT_MS });
  await chat.waitForRunEnds(1);
  expect(await chat.cardInState("getTime", "done").count()).toBe(1);
  expect(await watched.page.locator('.tool-card[data-state="error"]').count()).toBe(0);
  expect((await chat.assistantBubbles.last().textContent()) ?? "").toMatch(/Rolled 1d6: \d \(total \d\)/);
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});

it("opens on example prompts for the session's tools; picking one sends it and hides them", async () => {
  const watched = await openWatchedPage(browser);
  const chat = new ChatPage(watched.page);
  await chat.open(dev.url);
  const examples = watched.page.locator("#examples");
  await examples.getByRole("button").first().waitFor({ timeout: UI_TIMEOUT_MS });
  expect(await examples.getByRole("button").allTextContents()).toEqual([
    "What time is it in Lima?",
    "What's the weather in Tokyo?",
    "Roll 3 dice",
    "What tools do you have?",
  ]);
  await examples.getByRole("button", { name: "Roll 3 dice" }).click();
  await chat.cardInState("rollDice", "done").waitFor({ timeout: UI_TIMEOUT_MS });
  await chat.waitForRunEnds(1);
  expect(await examples.isHidden()).toBe(true);
  expect(await chat.userBubbles.last().textContent()).toContain("Roll 3 dice");
  expect((await chat.assistantBubbles.last().textContent()) ?? "").toMatch(/Rolled 3d6: \d, \d, \d \(total \d+\)/);
  await chat.reload();
  await chat.userBubbles.first().waitFor({ timeout: UI_TIMEOUT_MS });
  expect(await examples.isHidden()).toBe(true); // the conversation is not empty any more
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});

it("delegates to the researcher sub-agent with the offline model, the child's getTime card inside its card", async () => {
  const watched = await openWatchedPage(browser);
  const chat = new ChatPage(watched.page);
  await chat.open(dev.url);
  await chat.send('researcher task="what time is it in Tokyo"');
  const card = chat.cardInState("researcher", "done");
  await card.waitFor({ timeout: UI_TIMEOUT_MS });
  await card.locator('.sub-agent .tool-card[data-tool-name="getTime"][data-state="done"]').waitFor({ timeout: UI_TIMEOUT_MS });
  await chat.waitForRunEnds(1);
  expect(await card.locator(":scope > .tool-result pre").textContent()).toContain("Current time in Tokyo (Asia/Tokyo)");
  await screenshot(watched.page, "offline-model-sub-agent");
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});
