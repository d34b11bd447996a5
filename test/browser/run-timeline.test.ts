/**
 * The chat page's run timeline in Chromium against wrangler dev: after a run with a retried LLM call, an
 * approval and a tool call, a compact waterfall under the answer shows one row per LLM call, approval wait
 * and tool call, in order, each a label, a bar inside its track and a duration, side by side.
 */
import { describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { useChatPages } from "./support/chat-pages.ts";

const page = useChatPages();
const visible = { state: "visible", timeout: UI_TIMEOUT_MS } as const;

describe("the run timeline", () => {
  it("draws LLM calls, the approval wait and the tool call of a finished run as a waterfall", async () => {
    await page.chat.open(page.stack.url);
    const before = await page.chat.sessionId();
    await page.watched.page.getByLabel("Require approval for all tools").check();
    await page.watched.page.getByRole("button", { name: "New session" }).click();
    await expect.poll(() => page.chat.sessionId(), { timeout: UI_TIMEOUT_MS }).not.toBe(before);
    await page.chat.waitLive();
    page.stack.llm.enqueue(
      { status: 500, errorMessage: "overloaded" },
      { toolCalls: [{ name: "getTime", arguments: { timezone: "UTC" } }] },
      { text: "It is time." },
    );
    await page.chat.send("What time is it?");
    const waiting = page.chat.cardInState("getTime", "approval");
    await waiting.getByRole("button", { name: "Approve" }).click({ timeout: UI_TIMEOUT_MS });
    await page.chat.waitForRunEnds(1);
    const timeline = page.watched.page.locator(".timeline");
    await timeline.waitFor(visible);
    await screenshot(page.watched.page, "run-timeline");
    const kinds = await timeline.locator(".timeline-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-kind")));
    expect(kinds).toEqual(["llm", "tool", "approval", "llm"]);
    const labels = await timeline.locator(".timeline-label").allTextContents();
    expect(labels[0]).toBe("LLM call (1 retry)");
    expect(labels[1]).toBe("getTime");
    expect(labels[2]).toBe("approval: getTime");
    expect(await timeline.locator("summary").textContent()).toMatch(/^Timeline · .+ · 2 LLM, 1 tool, 1 approval$/);
    // Label, track and duration side by side with room between them, never run together as "LLM call75 ms".
    for (const row of await timeline.locator(".timeline-row").all()) {
      const label = (await row.locator(".timeline-label").boundingBox())!;
      const track = (await row.locator(".timeline-track").boundingBox())!;
      const ms = (await row.locator(".timeline-ms").boundingBox())!;
      expect(track.width).toBeGreaterThan(40);
      expect(track.x).toBeGreaterThanOrEqual(label.x + label.width + 4);
      expect(ms.x).toBeGreaterThanOrEqual(track.x + track.width + 4);
      expect(Math.abs(label.y + label.height / 2 - (ms.y + ms.height / 2))).toBeLessThan(4); // one line
      // And as text (copied, read aloud): the label, then the duration, apart.
      expect(await row.textContent()).toMatch(/^\S.*\S\s+(\d+ ms|\d\.\d+ s)$/);
    }
    for (const bar of await timeline.locator(".timeline-bar").all()) {
      const box = (await bar.boundingBox())!;
      const track = (await bar.locator("xpath=..").boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(track.x - 0.5);
      expect(box.x + box.width).toBeLessThanOrEqual(track.x + track.width + 0.5);
    }
    expect(await timeline.locator(".timeline-ms").first().textContent()).toMatch(/\d+ ms|\d\.\d+ s/);
  });
});
