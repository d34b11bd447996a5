/**
 * The page against a Worker that guards session creation with API_TOKEN: it asks for the token when the
 * API answers 401 and keeps it in the browser; and it shows the model's retries as they happen.
 * A real wrangler dev (API_TOKEN set as a var, the mock LLM behind it) and a real Chromium.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium, openWatchedPage } from "./support/browser.ts";
import { ChatPage, UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { buildClientBundle } from "./support/stack.ts";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { startMockOpenAi, type MockOpenAiServer } from "../../support/mock-openai-server.ts";

const TOKEN = "owner-token-123";
let dev: WranglerDev;
let llm: MockOpenAiServer;
let browser: Browser;

beforeAll(async () => {
  await buildClientBundle();
  llm = await startMockOpenAi();
  dev = await startWranglerDev({
    vars: { API_TOKEN: TOKEN, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "mock-model", MAX_RETRY_DELAY_MS: "20" },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  await llm?.close();
});

it("asks for the API token when the server answers 401, keeps it, and does not ask again after a reload", async () => {
  const watched = await openWatchedPage(browser);
  const prompts: string[] = [];
  watched.page.on("dialog", (dialog) => {
    prompts.push(dialog.message());
    void dialog.accept(TOKEN);
  });
  const chat = new ChatPage(watched.page);
  await chat.open(dev.url);
  expect(prompts).toHaveLength(1);
  expect(prompts[0]).toContain("API token");
  expect(await watched.page.evaluate(() => localStorage.getItem("edge-agent.apiToken"))).toBe(TOKEN);

  await watched.page.evaluate(() => localStorage.removeItem("edge-agent.session"));
  await chat.reload();
  expect(prompts).toHaveLength(1);
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});

it("shows a notice when the model's request is retried", async () => {
  const watched = await openWatchedPage(browser);
  await watched.context.addInitScript((token) => localStorage.setItem("edge-agent.apiToken", token), TOKEN);
  const chat = new ChatPage(watched.page);
  await chat.open(dev.url);
  llm.enqueue({ status: 503, errorMessage: "model overloaded" }, { text: "Back again." });
  await chat.send("hello");
  await watched.page.locator(".notice", { hasText: "trying again" }).waitFor({ timeout: UI_TIMEOUT_MS });
  await chat.waitForRunEnds(1);
  expect(await chat.assistantBubbles.last().textContent()).toContain("Back again.");
  await watched.context.close();
});
