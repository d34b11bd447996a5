import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openWatchedPage, screenshot, type WatchedPage } from "./support/browser.ts";
import { ChatPage, UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { isContiguous, readServerEvents } from "./support/server-events.ts";
import { startStack, type Stack } from "./support/stack.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.ts";

let stack: Stack;
let proxy: TcpProxy;
let watched: WatchedPage;
let chat: ChatPage;

beforeAll(async () => {
  stack = await startStack();
  // The page talks to wrangler through this proxy, so a test can cut its connections.
  proxy = await startTcpProxy(stack.port);
});

afterAll(async () => {
  await proxy?.close();
  await stack?.stop();
});

beforeEach(async () => {
  stack.llm.reset();
  stack.weather.release();
  watched = await openWatchedPage(stack.browser);
  chat = new ChatPage(watched.page);
});

afterEach(async () => {
  stack.weather.release();
  await watched.context.close();
  expect(watched.errors).toEqual([]);
});

const visible = { state: "visible", timeout: UI_TIMEOUT_MS } as const;

/** What the page applied is exactly the server's log: every event once, in order, none missing. */
async function expectPageMatchesServer(): Promise<void> {
  const logged = await chat.loggedEvents();
  expect(logged[0]?.seq).toBe(1);
  expect(isContiguous(logged)).toBe(true);
  expect(logged).toEqual(await readServerEvents(stack.url, await chat.storedSession()));
}

describe("the chat page's connection", () => {
  it("recovers from a wrangler dev restart mid-run with no event duplicated or missing", async () => {
    const answer = "Madrid is clear and 21.5 °C.";
    stack.llm.enqueue({ toolCalls: [{ name: "getWeather", arguments: { city: "Madrid" } }] }, { text: answer });
    stack.weather.hold();
    await chat.open(proxy.url);
    await chat.send("Weather in Madrid?");
    await chat.cardInState("getWeather", "running").locator(".tool-partial", { hasText: "forecast" }).waitFor(visible);

    const downAt = Date.now();
    await stack.stopWrangler();
    await watched.page.locator('#connection[data-state="reconnecting"]').waitFor(visible);
    await screenshot(watched.page, "server-restarting");
    stack.weather.release(); // the resumed run's lookup answers at once
    await stack.startWrangler();
    await chat.waitLive();
    const recoveredMs = Date.now() - downAt;

    await chat.waitForRunEnds(1);
    await screenshot(watched.page, "server-restarted");
    expect(await chat.card("getWeather").count()).toBe(1);
    expect(await chat.card("getWeather").getAttribute("data-state")).toBe("done");
    expect(await chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    expect(await chat.userBubbles.count()).toBe(1);
    await expectPageMatchesServer();
    console.log(`browser reconnect: wrangler down and back, page live again after ${recoveredMs} ms`);
  });

  it("recovers from a connection cut in the middle of a streamed answer with no event duplicated or missing", async () => {
    const answer = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen";
    stack.llm.enqueue({ text: answer, chunkDelayMs: 120 });
    await chat.open(proxy.url);
    await chat.send("Count to sixteen, slowly.");
    await watched.page.locator(".bubble-assistant.is-streaming .bubble-text", { hasText: "three" }).waitFor(visible);

    expect(proxy.cutAll()).toBeGreaterThan(0);
    await watched.page.locator('#connection[data-state="reconnecting"]').waitFor(visible);
    await chat.waitLive();
    await chat.waitForRunEnds(1);
    expect(await chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    expect(await chat.userBubbles.count()).toBe(1);
    await expectPageMatchesServer();
    await screenshot(watched.page, "stream-cut-recovered");
  });
});
