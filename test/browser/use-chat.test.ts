/**
 * A React app on @ai-sdk/react's useChat, served from another origin than the Worker, in Chromium against
 * wrangler dev with the mock LLM: a retried LLM call still delivers the answer, a reload in the middle of
 * a long run shows the whole answer (resume), and stop() with the abort route ends the run, returns the
 * status to ready, and the next message gets its own answer.
 */
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openWatchedPage, screenshot, type WatchedPage } from "./support/browser.ts";
import { UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { startStack, type Stack } from "./support/stack.ts";
import { serveUseChatPage, type UseChatPageServer } from "./support/use-chat-page.ts";

let stack: Stack;
let app: UseChatPageServer;
let watched: WatchedPage;

beforeAll(async () => {
  app = await serveUseChatPage();
  stack = await startStack({ vars: { CORS_ORIGINS: app.origin } });
});
afterAll(async () => {
  await stack?.stop();
  await app?.close();
});
beforeEach(async () => {
  stack.llm.reset();
  watched = await openWatchedPage(stack.browser);
});
afterEach(async () => {
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});

async function openApp(): Promise<{ page: Page; session: { id: string; key: string } }> {
  const session = (await (await fetch(`${stack.url}/v1/sessions`, { method: "POST" })).json()) as { id: string; key: string };
  await watched.page.goto(app.pageUrl(stack.url, session));
  await watched.page.locator('#chat[data-status="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });
  return { page: watched.page, session };
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill("#input", text);
  await page.click("#send");
}

const assistantTexts = (page: Page) => page.locator(".msg.assistant").allTextContents();

describe("useChat from another origin", () => {
  it("delivers the answer after the model's endpoint failed twice", async () => {
    stack.llm.enqueue(
      { status: 500, errorMessage: "overloaded" },
      { status: 500, errorMessage: "overloaded" },
      { text: "Answer after two retries." },
    );
    const { page } = await openApp();
    await send(page, "hello");
    await page.locator(".msg.assistant", { hasText: "Answer after two retries." }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('#chat[data-status="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator("#error").count()).toBe(0);
    const notices = (
      await page.evaluate(() => (globalThis as unknown as { notices: { type: string; data: { level: string } }[] }).notices)
    ).map((n) => n.data.level);
    expect(notices).toEqual(["retry", "retry"]);
  });

  it("shows the whole answer after a reload in the middle of a long run, then follows it to the end", async () => {
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`);
    const answer = words.join(" ");
    stack.llm.enqueue({ text: answer, chunkDelayMs: 100 });
    const { page } = await openApp();
    await send(page, "a long one");
    await page.locator(".msg.assistant", { hasText: "w5" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.reload();
    // Nothing but the resumed answer: the reloaded app has no messages of its own.
    await page.locator(".msg.assistant", { hasText: "w29" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('#chat[data-status="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "use-chat-resumed");
    expect(await assistantTexts(page)).toEqual([answer]);
    expect(await page.locator("#error").count()).toBe(0);
  });

  it("loads with nothing to resume when no run is active, and shows no error", async () => {
    const { page } = await openApp();
    await page.waitForTimeout(300);
    expect(await page.locator(".msg").count()).toBe(0);
    expect(await page.locator("#error").count()).toBe(0);
  });

  it("stops the run on stop(): status returns to ready and the next message gets its own answer", async () => {
    stack.llm.enqueue({ text: Array.from({ length: 40 }, (_, i) => `s${i}`).join(" "), chunkDelayMs: 100 }, { text: "The second answer." });
    const { page, session } = await openApp();
    await send(page, "go on and on");
    await page.locator(".msg.assistant", { hasText: "s2" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.click("#stop");
    await page.locator('#chat[data-status="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });
    await send(page, "next");
    await page.locator(".msg.assistant", { hasText: "The second answer." }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('#chat[data-status="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });
    const snapshot = (await (
      await fetch(`${stack.url}/v1/sessions/${session.id}`, { headers: { authorization: `Bearer ${session.key}` } })
    ).json()) as {
      messages: { role: string; stopReason?: string }[];
    };
    expect(snapshot.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(snapshot.messages.filter((m) => m.role === "assistant").map((m) => m.stopReason)).toEqual(["aborted", "stop"]);
    expect(await page.locator("#error").count()).toBe(0);
  });
});
