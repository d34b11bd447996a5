/**
 * Everything a browser test runs against: the client bundle built fresh into public/client.js, the mock
 * LLM (scripted per test), the mock weather API, and `wrangler dev` wired to both through vars; plus
 * Chromium. `restartWrangler()` stops wrangler and starts it again on the same port and persist dir (a
 * server restart as the page sees it). `stop()` ends every process and removes the persist dir.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { REPO_ROOT, startWranglerDev, type WranglerDev } from "../../../support/wrangler-dev.ts";
import { startMockOpenAi, type MockOpenAiServer } from "../../../support/mock-openai-server.ts";
import { launchChromium } from "./browser.ts";
import { startMockWeather, type MockWeather } from "./mock-weather.ts";
import { sleep } from "../../support/time.ts";

export type Stack = {
  url: string;
  port: number;
  llm: MockOpenAiServer;
  weather: MockWeather;
  browser: Browser;
  restartWrangler(options?: { downMs?: number }): Promise<void>;
  stopWrangler(): Promise<void>;
  startWrangler(): Promise<void>;
  stop(): Promise<void>;
};

export async function buildClientBundle(): Promise<void> {
  await promisify(execFile)(
    join(REPO_ROOT, "node_modules", ".bin", "node"),
    ["--experimental-transform-types", "--disable-warning=ExperimentalWarning", join(REPO_ROOT, "scripts", "build-client.ts")],
    { cwd: REPO_ROOT },
  );
}

/** `vars`: more wrangler vars for this stack (e.g. MCP_SERVERS naming a test's own MCP server). */
export async function startStack(options: { vars?: Record<string, string> } = {}): Promise<Stack> {
  const persistTo = mkdtempSync(join(tmpdir(), "edge-agent-browser-"));
  const started: { stop: () => Promise<void> }[] = [];
  let wrangler: WranglerDev | undefined;
  try {
    await buildClientBundle();
    const llm = await startMockOpenAi();
    started.push({ stop: () => llm.close() });
    const weather = await startMockWeather();
    started.push({ stop: () => weather.close() });
    const vars = {
      OPENAI_API_KEY: "test-key",
      OPENAI_BASE_URL: llm.url,
      OPENAI_MODEL: "mock-model",
      MAX_RETRY_DELAY_MS: "20",
      WEATHER_API_BASE_URL: weather.url,
      GEOCODING_API_BASE_URL: weather.url,
      ...options.vars,
    };
    wrangler = await startWranglerDev({ vars, persistTo });
    const port = wrangler.port;
    const browser = await launchChromium();
    started.push({ stop: () => browser.close() });

    const startWrangler = async () => {
      wrangler = await startWranglerDev({ vars, persistTo, port });
    };
    const stopWrangler = async () => {
      await wrangler?.stop();
      wrangler = undefined;
    };
    return {
      url: wrangler.url,
      port,
      llm,
      weather,
      browser,
      stopWrangler,
      startWrangler,
      restartWrangler: async ({ downMs = 0 } = {}) => {
        await stopWrangler();
        if (downMs > 0) await sleep(downMs);
        await startWrangler();
      },
      stop: async () => {
        await stopWrangler();
        for (const item of started.reverse()) await item.stop();
        rmSync(persistTo, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await wrangler?.stop();
    for (const item of started.reverse()) await item.stop();
    rmSync(persistTo, { recursive: true, force: true });
    throw err;
  }
}
