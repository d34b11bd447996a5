/**
 * The page's schedules: a schedule the model makes shows in the Schedules panel (next run, kind,
 * message), its fire shows as a user message marked "scheduled" in the chat, and Cancel ends one.
 */
import { describe, expect, it } from "vitest";
import { UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { useChatPages } from "./support/chat-pages.ts";

const page = useChatPages();
const visible = { state: "visible", timeout: UI_TIMEOUT_MS } as const;

describe("the schedules panel", () => {
  it("lists the schedule the model made, then marks its message in the chat when it fires", async () => {
    page.stack.llm.enqueue(
      { toolCalls: [{ name: "schedule", arguments: { message: "look again", delayMs: 2_000 } }] },
      { text: "I will look again shortly." },
      { text: "Looked again." },
    );
    await page.chat.open(page.stack.url);
    await page.chat.send("Look again in two seconds");
    const entry = page.watched.page.locator("#schedules .schedule-entry");
    await entry.waitFor(visible);
    expect(await entry.locator(".schedule-message").textContent()).toBe("look again");
    expect(await entry.getAttribute("data-kind")).toBe("at");
    const scheduled = page.chat.userBubbles.and(page.watched.page.locator(".bubble-scheduled"));
    await scheduled.waitFor(visible);
    expect(await scheduled.locator(".bubble-text").textContent()).toBe("look again");
    await page.chat.waitForRunEnds(2);
    await page.watched.page.locator("#schedules", { hasText: "No schedules" }).waitFor(visible);
    // A reload shows the same mark, from history.
    await page.chat.reload();
    await page.watched.page.locator(".bubble-scheduled").waitFor(visible);
  });

  it("cancels a schedule with its Cancel button", async () => {
    page.stack.llm.enqueue(
      { toolCalls: [{ name: "schedule", arguments: { message: "much later", cron: "0 7 * * *" } }] },
      { text: "Scheduled." },
    );
    await page.chat.open(page.stack.url);
    await page.chat.send("Every morning at seven");
    const entry = page.watched.page.locator("#schedules .schedule-entry");
    await entry.waitFor(visible);
    expect(await entry.locator(".badge").first().textContent()).toBe("cron 0 7 * * * (UTC)");
    await entry.getByRole("button", { name: /Cancel schedule/ }).click();
    await page.watched.page.locator("#schedules", { hasText: "No schedules" }).waitFor(visible);
  });
});
