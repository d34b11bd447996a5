import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openWatchedPage, screenshot, type WatchedPage } from "./support/browser.ts";
import { ChatPage, UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { isContiguous, readServerEvents } from "./support/server-events.ts";
import { startStack, type Stack } from "./support/stack.ts";

let stack: Stack;
let watched: WatchedPage;
let chat: ChatPage;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
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

/** Starts a fresh session that asks before every tool call, through the page's own controls. */
async function newApprovalSession(): Promise<void> {
  const before = await chat.sessionId();
  await watched.page.getByLabel("Require approval for all tools").check();
  await watched.page.getByRole("button", { name: "New session" }).click();
  await expect.poll(() => chat.sessionId(), { timeout: UI_TIMEOUT_MS }).not.toBe(before);
  await chat.waitLive();
}

describe("the chat page", () => {
  it("streams the answer and shows a tool card going from start through partial results to its end", async () => {
    const answer = "It is clear and 21.5 °C in Berlin right now, with a light breeze.";
    stack.llm.enqueue({ toolCalls: [{ name: "getWeather", arguments: { city: "Berlin" } }] }, { text: answer, chunkDelayMs: 60 });
    stack.weather.hold();
    await chat.open(stack.url);
    await chat.send("What's the weather in Berlin?");

    await expect.poll(() => chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["What's the weather in Berlin?"]);
    const card = chat.cardInState("getWeather", "running");
    await card.locator(".tool-partial", { hasText: '"stage":"forecast"' }).waitFor(visible);
    expect(await card.locator(".tool-partial").allTextContents()).toEqual([
      '{"stage":"geocoding","city":"Berlin"}',
      expect.stringContaining('{"stage":"forecast","location":{"name":"Berlin"'),
    ]);
    expect(await card.locator(".tool-result").isVisible()).toBe(false);
    expect(await chat.abortButton.isVisible()).toBe(true);
    await screenshot(watched.page, "tool-card-running");

    stack.weather.release();
    await watched.page.locator(".bubble-assistant.is-streaming .bubble-text:not(:empty)").waitFor(visible);
    await chat.waitForRunEnds(1);
    await screenshot(watched.page, "answer-streamed");

    const done = chat.cardInState("getWeather", "done");
    expect(await done.locator(".tool-result pre").textContent()).toBe("Weather in Berlin, Testland: Clear sky, 21.5°C, wind 12 km/h");
    expect(await done.locator(".tool-duration").textContent()).toMatch(/^\d+(\.\d+)? (ms|s)$/);
    expect(await chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    expect(await chat.abortButton.isVisible()).toBe(false);

    const logged = await chat.loggedEvents();
    expect(logged[0]?.seq).toBe(1);
    expect(isContiguous(logged)).toBe(true);
    expect(logged.filter((e) => e.type.startsWith("toolExec")).map((e) => e.type)).toEqual([
      "toolExecStart",
      "toolExecUpdate",
      "toolExecUpdate",
      "toolExecEnd",
    ]);
    expect(logged.filter((e) => e.type === "messageDelta").length).toBeGreaterThan(5);
    expect(logged).toEqual(await readServerEvents(stack.url, await chat.storedSession()));
  });

  it("adds a line on Shift+Enter and sends on Enter", async () => {
    await chat.open(stack.url);
    await chat.prompt.fill("first line");
    await chat.prompt.press("Shift+Enter");
    await chat.prompt.pressSequentially("second line");
    expect(await chat.prompt.inputValue()).toBe("first line\nsecond line");
    expect(await chat.userBubbles.count()).toBe(0);

    await chat.prompt.press("Enter");
    await chat.waitForRunEnds(1);
    expect(await chat.prompt.inputValue()).toBe("");
    expect(await chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["first line\nsecond line"]);
    expect(await chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual(["Mock reply to: first line\nsecond line"]);
  });

  it("lists the registry's tools with their status and marks those this session can use", async () => {
    await chat.open(stack.url);
    const entry = watched.page.locator('#tools .tool-entry[data-tool-name="getWeather"]');
    await entry.waitFor(visible);
    expect(await entry.locator(".badge").allTextContents()).toEqual(["bundled", "in session"]);
    expect(await watched.page.locator('#tools .tool-entry[data-tool-name="listTools"]').count()).toBe(1);
  });

  it("runs a tool only after Approve when the session requires approval, even across a reload", async () => {
    await chat.open(stack.url);
    await newApprovalSession();
    stack.llm.enqueue({ toolCalls: [{ name: "getTime", arguments: { timezone: "UTC" } }] }, { text: "Noted the time." });
    await chat.send("What time is it in UTC?");

    const waiting = chat.cardInState("getTime", "approval");
    await waiting.getByRole("button", { name: "Approve" }).waitFor(visible);
    expect(await waiting.getByRole("button", { name: "Reject" }).isVisible()).toBe(true);
    expect(await waiting.locator(".tool-result").isVisible()).toBe(false);
    await screenshot(watched.page, "approval-requested");

    // The question survives a reload: the snapshot lists it as pending.
    await chat.reload();
    await waiting.getByRole("button", { name: "Approve" }).click({ timeout: UI_TIMEOUT_MS });
    await chat.waitForRunEnds(1);
    const done = chat.cardInState("getTime", "done");
    expect(await done.locator(".approval-outcome").textContent()).toBe("Approved");
    expect(await done.locator(".tool-result pre").textContent()).toMatch(/^Current time in UTC: /);
    expect(await chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual(["Noted the time."]);
  });

  it("blocks a tool on Reject and lets the agent answer without it", async () => {
    await chat.open(stack.url);
    await newApprovalSession();
    stack.llm.enqueue({ toolCalls: [{ name: "getTime", arguments: { timezone: "UTC" } }] }, { text: "Without the clock I cannot tell." });
    await chat.send("What time is it in UTC?");

    const waiting = chat.cardInState("getTime", "approval");
    await waiting.getByRole("button", { name: "Reject" }).click({ timeout: UI_TIMEOUT_MS });
    await chat.waitForRunEnds(1);
    const failed = chat.cardInState("getTime", "error");
    expect(await failed.locator(".tool-result pre").textContent()).toBe("Rejected by the user");
    expect(await chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual(["Without the clock I cannot tell."]);
    const toolMessage = stack.llm.requests.at(-1)?.body.messages?.at(-1);
    expect(toolMessage).toMatchObject({ role: "tool", content: expect.stringContaining("Rejected by the user") });
    await screenshot(watched.page, "approval-rejected");
  });

  it("aborts a running turn with the Abort button", async () => {
    stack.llm.enqueue({ toolCalls: [{ name: "getWeather", arguments: { city: "Oslo" } }] });
    stack.weather.hold();
    await chat.open(stack.url);
    await chat.send("Weather in Oslo?");
    await chat.cardInState("getWeather", "running").locator(".tool-partial", { hasText: "forecast" }).waitFor(visible);

    await chat.abortButton.click();
    await chat.waitForRunEnds(1);
    expect(await chat.abortButton.isVisible()).toBe(false);
    expect(await chat.card("getWeather").getAttribute("data-state")).toBe("error");
    expect(await watched.page.locator(".bubble-error").allTextContents()).toEqual(["Stopped: the run was aborted."]);
    expect((await chat.loggedEvents()).at(-1)).toMatchObject({ type: "runEnd" });
    expect(await watched.page.locator("#event-log li").last().textContent()).toMatch(/runEnd aborted$/);
    expect(stack.llm.requests).toHaveLength(1); // no LLM call after the abort
    await screenshot(watched.page, "aborted");
  });

  it("restores the conversation after a reload, mid-run and after it, without showing anything twice", async () => {
    const answer = "Lisbon is clear and 21.5 °C.";
    stack.llm.enqueue({ toolCalls: [{ name: "getWeather", arguments: { city: "Lisbon" } }] }, { text: answer });
    stack.weather.hold();
    await chat.open(stack.url);
    const session = await chat.storedSession();
    await chat.send("Weather in Lisbon?");
    await chat.cardInState("getWeather", "running").locator(".tool-partial", { hasText: "forecast" }).waitFor(visible);

    await chat.reload();
    expect(await chat.sessionId()).toBe(session.id);
    expect(await chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["Weather in Lisbon?"]);
    expect(await chat.card("getWeather").getAttribute("data-state")).toBe("running");
    expect(await chat.abortButton.isVisible()).toBe(true);
    await screenshot(watched.page, "reloaded-mid-run");

    stack.weather.release();
    await chat.waitForRunEnds(1);
    expect(await chat.card("getWeather").count()).toBe(1);
    expect(await chat.cardInState("getWeather", "done").locator(".tool-result pre").textContent()).toContain("Weather in Lisbon");
    expect(await chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    const afterReload = await chat.loggedEvents();
    expect(isContiguous(afterReload)).toBe(true);
    const serverEvents = await readServerEvents(stack.url, session);
    expect(afterReload).toEqual(serverEvents.filter((e) => e.seq >= afterReload[0]!.seq));
    expect(afterReload[0]!.seq).toBeGreaterThan(1); // the page streamed only what its snapshot did not hold

    await chat.reload();
    expect(await chat.loggedEvents()).toEqual([]);
    expect(await chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["Weather in Lisbon?"]);
    expect(await chat.card("getWeather").getAttribute("data-state")).toBe("done");
    expect(await chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    await screenshot(watched.page, "reloaded-after-run");
  });

  it("shows the newest page of a long conversation and loads older messages when scrolled to the top", async () => {
    const calls = Array.from({ length: 60 }, (_, i) => ({ name: "getTime", arguments: { city: i % 2 ? "Tokyo" : "Paris" } }));
    stack.llm.enqueue({ toolCalls: calls }, { text: "All sixty clocks read." });
    await chat.open(stack.url);
    await chat.send("Sixty clocks, please");
    await chat.waitForRunEnds(1);

    await chat.reload();
    // 63 messages: the snapshot holds the newest 50 (49 results and the answer), not the question.
    expect(await chat.card("getTime").count()).toBe(49);
    expect(await chat.userBubbles.count()).toBe(0);
    await watched.page.locator("#messages").evaluate((list) => list.parentElement!.scrollTo({ top: 0 }));
    await chat.userBubbles.first().waitFor(visible);
    expect(await chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["Sixty clocks, please"]);
    expect(await chat.card("getTime").count()).toBe(60);
    expect(await watched.page.locator("#messages > li").first().getAttribute("data-role")).toBe("user");
    expect(await chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual(["All sixty clocks read."]);
    await screenshot(watched.page, "older-history-loaded");
  });
});
