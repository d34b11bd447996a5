import { describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { useChatPages } from "./support/chat-pages.ts";
import { isContiguous, readServerEvents } from "./support/server-events.ts";

const page = useChatPages();

const visible = { state: "visible", timeout: UI_TIMEOUT_MS } as const;

/** Starts a fresh session that asks before every tool call, through the page's own controls. */
async function newApprovalSession(): Promise<void> {
  const before = await page.chat.sessionId();
  await page.watched.page.getByLabel("Require approval for all tools").check();
  await page.watched.page.getByRole("button", { name: "New session" }).click();
  await expect.poll(() => page.chat.sessionId(), { timeout: UI_TIMEOUT_MS }).not.toBe(before);
  await page.chat.waitLive();
}

describe("the chat page", () => {
  it("streams the answer and shows a tool card going from start through partial results to its end", async () => {
    const answer = "It is clear and 21.5 °C in Berlin right now, with a light breeze.";
    page.stack.llm.enqueue({ toolCalls: [{ name: "getWeather", arguments: { city: "Berlin" } }] }, { text: answer, chunkDelayMs: 60 });
    page.stack.weather.hold();
    await page.chat.open(page.stack.url);
    await page.chat.send("What's the weather in Berlin?");

    await expect.poll(() => page.chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["What's the weather in Berlin?"]);
    const card = page.chat.cardInState("getWeather", "running");
    await card.locator(".tool-partial", { hasText: '"stage":"forecast"' }).waitFor(visible);
    expect(await card.locator(".tool-partial").allTextContents()).toEqual([
      '{"stage":"geocoding","city":"Berlin"}',
      expect.stringContaining('{"stage":"forecast","location":{"name":"Berlin"'),
    ]);
    expect(await card.locator(".tool-result").isVisible()).toBe(false);
    expect(await page.chat.abortButton.isVisible()).toBe(true);
    await screenshot(page.watched.page, "tool-card-running");

    page.stack.weather.release();
    await page.watched.page.locator(".bubble-assistant.is-streaming .bubble-text:not(:empty)").waitFor(visible);
    await page.chat.waitForRunEnds(1);
    await screenshot(page.watched.page, "answer-streamed");

    const done = page.chat.cardInState("getWeather", "done");
    expect(await done.locator(".tool-result pre").textContent()).toBe("Weather in Berlin, Testland: Clear sky, 21.5°C, wind 12 km/h");
    expect(await done.locator(".tool-duration").textContent()).toMatch(/^\d+(\.\d+)? (ms|s)$/);
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    expect(await page.chat.abortButton.isVisible()).toBe(false);

    const logged = await page.chat.loggedEvents();
    expect(logged[0]?.seq).toBe(1);
    expect(isContiguous(logged)).toBe(true);
    expect(logged.filter((e) => e.type.startsWith("toolExec")).map((e) => e.type)).toEqual([
      "toolExecStart",
      "toolExecUpdate",
      "toolExecUpdate",
      "toolExecEnd",
    ]);
    expect(logged.filter((e) => e.type === "messageDelta").length).toBeGreaterThan(5);
    expect(logged).toEqual(await readServerEvents(page.stack.url, await page.chat.storedSession()));
  });

  it("adds a line on Shift+Enter and sends on Enter", async () => {
    await page.chat.open(page.stack.url);
    await page.chat.prompt.fill("first line");
    await page.chat.prompt.press("Shift+Enter");
    await page.chat.prompt.pressSequentially("second line");
    expect(await page.chat.prompt.inputValue()).toBe("first line\nsecond line");
    expect(await page.chat.userBubbles.count()).toBe(0);

    await page.chat.prompt.press("Enter");
    await page.chat.waitForRunEnds(1);
    expect(await page.chat.prompt.inputValue()).toBe("");
    expect(await page.chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["first line\nsecond line"]);
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual(["Mock reply to: first line\nsecond line"]);
  });

  it("lists the registry's tools with their status and marks those this session can use", async () => {
    await page.chat.open(page.stack.url);
    const entry = page.watched.page.locator('#tools .tool-entry[data-tool-name="getWeather"]');
    await entry.waitFor(visible);
    expect(await entry.locator(".badge").allTextContents()).toEqual(["bundled", "in session"]);
    expect(await page.watched.page.locator('#tools .tool-entry[data-tool-name="listTools"]').count()).toBe(1);
  });

  it("runs a tool only after Approve when the session requires approval, even across a reload", async () => {
    await page.chat.open(page.stack.url);
    await newApprovalSession();
    page.stack.llm.enqueue({ toolCalls: [{ name: "getTime", arguments: { timezone: "UTC" } }] }, { text: "Noted the time." });
    await page.chat.send("What time is it in UTC?");

    const waiting = page.chat.cardInState("getTime", "approval");
    await waiting.getByRole("button", { name: "Approve" }).waitFor(visible);
    expect(await waiting.getByRole("button", { name: "Reject" }).isVisible()).toBe(true);
    expect(await waiting.locator(".tool-result").isVisible()).toBe(false);
    await screenshot(page.watched.page, "approval-requested");

    // The question survives a reload: the snapshot lists it as pending.
    await page.chat.reload();
    await waiting.getByRole("button", { name: "Approve" }).click({ timeout: UI_TIMEOUT_MS });
    await page.chat.waitForRunEnds(1);
    const done = page.chat.cardInState("getTime", "done");
    expect(await done.locator(".approval-outcome").textContent()).toBe("Approved");
    expect(await done.locator(".tool-result pre").textContent()).toMatch(/^Current time in UTC: /);
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual(["Noted the time."]);
  });

  it("blocks a tool on Reject and lets the agent answer without it", async () => {
    await page.chat.open(page.stack.url);
    await newApprovalSession();
    page.stack.llm.enqueue(
      { toolCalls: [{ name: "getTime", arguments: { timezone: "UTC" } }] },
      { text: "Without the clock I cannot tell." },
    );
    await page.chat.send("What time is it in UTC?");

    const waiting = page.chat.cardInState("getTime", "approval");
    await waiting.getByRole("button", { name: "Reject" }).click({ timeout: UI_TIMEOUT_MS });
    await page.chat.waitForRunEnds(1);
    const failed = page.chat.cardInState("getTime", "error");
    expect(await failed.locator(".tool-result pre").textContent()).toBe("Rejected by the user");
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual(["Without the clock I cannot tell."]);
    const toolMessage = page.stack.llm.requests.at(-1)?.body.messages?.at(-1);
    expect(toolMessage).toMatchObject({ role: "tool", content: expect.stringContaining("Rejected by the user") });
    await screenshot(page.watched.page, "approval-rejected");
  });

  it("aborts a running turn with the Abort button", async () => {
    page.stack.llm.enqueue({ toolCalls: [{ name: "getWeather", arguments: { city: "Oslo" } }] });
    page.stack.weather.hold();
    await page.chat.open(page.stack.url);
    await page.chat.send("Weather in Oslo?");
    await page.chat.cardInState("getWeather", "running").locator(".tool-partial", { hasText: "forecast" }).waitFor(visible);

    await page.chat.abortButton.click();
    await page.chat.waitForRunEnds(1);
    expect(await page.chat.abortButton.isVisible()).toBe(false);
    expect(await page.chat.card("getWeather").getAttribute("data-state")).toBe("error");
    expect(await page.watched.page.locator(".bubble-error").allTextContents()).toEqual(["Stopped: the run was aborted."]);
    expect((await page.chat.loggedEvents()).at(-1)).toMatchObject({ type: "runEnd" });
    expect(await page.watched.page.locator("#event-log li").last().textContent()).toMatch(/runEnd aborted$/);
    expect(page.stack.llm.requests).toHaveLength(1); // no LLM call after the abort
    await screenshot(page.watched.page, "aborted");
  });

  it("restores the conversation after a reload, mid-run and after it, without showing anything twice", async () => {
    const answer = "Lisbon is clear and 21.5 °C.";
    page.stack.llm.enqueue({ toolCalls: [{ name: "getWeather", arguments: { city: "Lisbon" } }] }, { text: answer });
    page.stack.weather.hold();
    await page.chat.open(page.stack.url);
    const session = await page.chat.storedSession();
    await page.chat.send("Weather in Lisbon?");
    await page.chat.cardInState("getWeather", "running").locator(".tool-partial", { hasText: "forecast" }).waitFor(visible);

    await page.chat.reload();
    expect(await page.chat.sessionId()).toBe(session.id);
    expect(await page.chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["Weather in Lisbon?"]);
    expect(await page.chat.card("getWeather").getAttribute("data-state")).toBe("running");
    expect(await page.chat.abortButton.isVisible()).toBe(true);
    await screenshot(page.watched.page, "reloaded-mid-run");

    page.stack.weather.release();
    await page.chat.waitForRunEnds(1);
    expect(await page.chat.card("getWeather").count()).toBe(1);
    expect(await page.chat.cardInState("getWeather", "done").locator(".tool-result pre").textContent()).toContain("Weather in Lisbon");
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    const afterReload = await page.chat.loggedEvents();
    expect(isContiguous(afterReload)).toBe(true);
    const serverEvents = await readServerEvents(page.stack.url, session);
    expect(afterReload).toEqual(serverEvents.filter((e) => e.seq >= afterReload[0]!.seq));
    expect(afterReload[0]!.seq).toBeGreaterThan(1); // the page streamed only what its snapshot did not hold

    await page.chat.reload();
    expect(await page.chat.loggedEvents()).toEqual([]);
    expect(await page.chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["Weather in Lisbon?"]);
    expect(await page.chat.card("getWeather").getAttribute("data-state")).toBe("done");
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual([answer]);
    await screenshot(page.watched.page, "reloaded-after-run");
  });

  it("shows the newest page of a long conversation and loads older messages when scrolled to the top", async () => {
    const calls = Array.from({ length: 60 }, (_, i) => ({ name: "getTime", arguments: { city: i % 2 ? "Tokyo" : "Paris" } }));
    page.stack.llm.enqueue({ toolCalls: calls }, { text: "All sixty clocks read." });
    await page.chat.open(page.stack.url);
    await page.chat.send("Sixty clocks, please");
    await page.chat.waitForRunEnds(1);

    await page.chat.reload();
    // 63 messages: the snapshot holds the newest 50 (49 results and the answer), not the question.
    expect(await page.chat.card("getTime").count()).toBe(49);
    expect(await page.chat.userBubbles.count()).toBe(0);
    await page.watched.page.locator("#messages").evaluate((list) => list.parentElement!.scrollTo({ top: 0 }));
    await page.chat.userBubbles.first().waitFor(visible);
    expect(await page.chat.userBubbles.locator(".bubble-text").allTextContents()).toEqual(["Sixty clocks, please"]);
    expect(await page.chat.card("getTime").count()).toBe(60);
    expect(await page.watched.page.locator("#messages > li").first().getAttribute("data-role")).toBe("user");
    expect(await page.chat.assistantBubbles.locator(".bubble-text").allTextContents()).toEqual(["All sixty clocks read."]);
    await screenshot(page.watched.page, "older-history-loaded");
  });
});
