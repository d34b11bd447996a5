/**
 * Debian's Chromium driven by playwright-core, for the browser tests: launch flags that keep it off the
 * network and quiet, a page that records console errors and uncaught exceptions, and screenshots saved to
 * test-output/screenshots/ (gitignored). Every browser launched here is closed by the test that launched it.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { REPO_ROOT } from "../../../support/wrangler-dev.ts";

/** Debian's Chromium by default; elsewhere (e.g. a Mac) point CHROMIUM_PATH at a Chrome or Chromium binary. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH?.trim() || "/usr/bin/chromium";
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
export const SCREENSHOT_DIR = join(REPO_ROOT, "test-output", "screenshots");

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS, headless: true });
}

export type WatchedPage = {
  page: Page;
  context: BrowserContext;
  /** Uncaught exceptions and console errors, except failed resource loads the test caused on purpose. */
  errors: string[];
};

/** A fresh context (own localStorage) and page at a desktop size, with error capture. */
export async function openWatchedPage(browser: Browser, viewport = { width: 1200, height: 860 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  page.on("console", (message) => {
    // A dropped connection or a stopped server makes the browser log failed fetches: expected in these tests.
    if (message.type() === "error" && !/Failed to load resource|net::ERR_/.test(message.text())) errors.push(`console: ${message.text()}`);
  });
  return { page, context, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
