import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { useChatPages } from "./support/chat-pages.ts";
import { isContiguous, readServerEvents } from "./support/server-events.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.ts";

const page = useChatPages();
let proxy: TcpProxy;

beforeAll(async () => {
  // The page talks to wrangler through this proxy, so a test can cut its connections.
  proxy = await startTcpProxy(page.stack.port);
});

afterAll(async () => {
  await proxy?.close();
});

const visible = { state: "visible", timeout: UI_TIMEOUT_MS } as const;

/** What the page applied is exactly the server's log: every event once, in order, none missing. */
async function expectPageMatchesServer(): Promise<void> {
  const logged = await page.chat.loggedEvents();
  expect(logged[0]?.seq).toBe(1);
  expect(isContiguous(logged)).toBe(true);
  expect(logged).toEqual(await readServerEvents(page.stack.url, await page.chat.storedSession()));
}

describe("the chat page's connection", () => {
  it("recovers from a wrangler dev restart mid-run with no event duplicated or missing", async () => {
    const answer = "Madrid is clear and 21.5 °C.";
    page.stack.llm.enqueue({ toolCalls: [{ name: "getWeather", arguments: { city: "Madrid" } }] }, { text: answer });
    page.stack.weather.hold();
    await page.chat.open(proxy.url);
    await page.chat.send("Weather in Madrid?");
    await page.chat.cardInState("getWeather", "running").locator(".tool-partial", { hasText: "forecast" }).waitFor(visible);

    const downAt = Date.now();
    await page.stack.stopWrangler();
    await page.watched.page.locator('#connection[data-state="reconnecting"]').waitFor(visible);
    await screenshot(page.watched.page, "server-restarting");
    page.stack.weather.release(); // the resumed run's lookup answers at once
    await page.stack.startWrangler();
    await page.chat.waitLive();
    const recoveredMs = Date.now() - downAt;

    await page.chat.waitForRunEnds(1);
    await screenshot(page.watched.page, "server-restarted");
    expect(await page.chat.card("getWeather").count()).toBe(1);
    expect(await page.chat.card("getWeather").getAttribute("data-state")).toBe("done");
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    expect(await page.chat.userBubbles.count()).toBe(1);
    await expectPageMatchesServer();
    console.log(`browser reconnect: wrangler down and back, page live again after ${recoveredMs} ms`);
  });

  it("recovers from a connection cut in the middle of a streamed answer with no event duplicated or missing", async () => {
    const answer = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen";
    page.stack.llm.enqueue({ text: answer, chunkDelayMs: 120 });
    await page.chat.open(proxy.url);
    await page.chat.send("Count to sixteen, slowly.");
    await page.watched.page.locator(".bubble-assistant.is-streaming .bubble-text", { hasText: "three" }).waitFor(visible);

    expect(proxy.cutAll()).toBeGreaterThan(0);
    await page.watched.page.locator('#connection[data-state="reconnecting"]').waitFor(visible);
    await page.chat.waitLive();
    await page.chat.waitForRunEnds(1);
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    expect(await page.chat.userBubbles.count()).toBe(1);
    await expectPageMatchesServer();
    await screenshot(page.watched.page, "stream-cut-recovered");
  });
});
