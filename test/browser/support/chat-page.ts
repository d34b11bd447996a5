/**
 * The web page as the browser tests see it: locators by role and data attributes, and readers for what
 * the page shows (event-log panel, session id). Keeps selectors in one place so the tests read as
 * behaviour. The page stores its session as JSON under localStorage["edge-agent.session"].
 */
import type { Locator, Page } from "playwright-core";

/** Long enough for wrangler dev on a busy 2-CPU machine; a hang still fails well before the test timeout. */
export const UI_TIMEOUT_MS = 20_000;

export type LoggedEvent = { seq: number; type: string };

export class ChatPage {
  constructor(readonly page: Page) {}

  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await this.waitLive();
  }

  async reload(): Promise<void> {
    await this.page.reload();
    await this.waitLive();
  }

  waitLive(): Promise<void> {
    return this.page.locator('#connection[data-state="open"]').waitFor({ timeout: UI_TIMEOUT_MS });
  }

  get prompt(): Locator {
    return this.page.getByLabel("Message to the agent");
  }

  get connection(): Locator {
    return this.page.locator("#connection");
  }

  get abortButton(): Locator {
    return this.page.getByRole("button", { name: "Abort" });
  }

  /** Types the text and presses Enter, as a person would. */
  async send(text: string): Promise<void> {
    await this.prompt.fill(text);
    await this.prompt.press("Enter");
  }

  card(toolName: string): Locator {
    return this.page.locator(`.tool-card[data-tool-name="${toolName}"]`);
  }

  cardInState(toolName: string, state: string): Locator {
    return this.page.locator(`.tool-card[data-tool-name="${toolName}"][data-state="${state}"]`);
  }

  get userBubbles(): Locator {
    return this.page.locator(".bubble-user");
  }

  get assistantBubbles(): Locator {
    return this.page.locator(".bubble-assistant");
  }

  /** Waits until the event log holds at least `count` runEnd events. */
  async waitForRunEnds(count: number): Promise<void> {
    await this.page
      .locator('#event-log li[data-type="runEnd"]')
      .nth(count - 1)
      .waitFor({ state: "attached", timeout: UI_TIMEOUT_MS });
  }

  async sessionId(): Promise<string> {
    return (await this.page.locator("#session-id").textContent())?.trim() ?? "";
  }

  /** The id and key the page keeps in localStorage. */
  async storedSession(): Promise<{ id: string; key: string }> {
    const raw = await this.page.evaluate<string | null>('localStorage.getItem("edge-agent.session")');
    if (!raw) throw new Error("the page stored no session");
    return JSON.parse(raw) as { id: string; key: string };
  }

  /** Every event the page applied since it loaded, from its event-log panel ("#12 toolExecStart getWeather"). */
  async loggedEvents(): Promise<LoggedEvent[]> {
    const lines = await this.page.locator("#event-log li").allTextContents();
    return lines.map((line) => {
      const match = /^#(\d+) (\w+)/.exec(line);
      if (!match) throw new Error(`unexpected event-log line: ${line}`);
      return { seq: Number(match[1]), type: match[2]! };
    });
  }
}
