/**
 * The setup the chat page's browser tests share: one stack (wrangler dev, mock LLM and weather API,
 * Chromium) for the file, and for each test a fresh browser context with its ChatPage. After each test
 * the context closes and the page must have logged no errors. Read the fields inside tests and hooks.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { openWatchedPage, type WatchedPage } from "./browser.ts";
import { ChatPage } from "./chat-page.ts";
import { startStack, type Stack } from "./stack.ts";

export type ChatPages = { readonly stack: Stack; readonly watched: WatchedPage; readonly chat: ChatPage };

export function useChatPages(): ChatPages {
  let stack: Stack | undefined;
  let current: { watched: WatchedPage; chat: ChatPage } | undefined;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });
  beforeEach(async () => {
    const { llm, weather, browser } = started();
    llm.reset();
    weather.release();
    const watched = await openWatchedPage(browser);
    current = { watched, chat: new ChatPage(watched.page) };
  });
  afterEach(async () => {
    started().weather.release();
    const watched = current?.watched;
    current = undefined;
    if (!watched) return;
    await watched.context.close();
    expect(watched.errors).toEqual([]);
  });
  const started = (): Stack => {
    if (!stack) throw new Error("the stack is read before beforeAll started it");
    return stack;
  };
  const inTest = () => {
    if (!current) throw new Error("the page is read outside a test");
    return current;
  };
  return {
    get stack() {
      return started();
    },
    get watched() {
      return inTest().watched;
    },
    get chat() {
      return inTest().chat;
    },
  };
}
