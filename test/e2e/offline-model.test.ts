/**
 * End to end with no OPENAI_API_KEY: `wrangler dev` answers with the built-in offline demo model. Checks a
 * time question over HTTP + SSE from Node, then runs the documented curl session (the README's curl section,
 * every ```sh block in one bash, the port swapped for this server's) and checks what each step prints.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApi, textOf, type AssistantResponse } from "./support/http-api.ts";
import { runShellSession, shellBlocksOf, type StepResult } from "./support/shell-session.ts";
import type { SseEvent } from "../support/sse-reader.ts";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";

const README_PATH = join(dirname(fileURLToPath(import.meta.url)), "../../README.md");

/** The README's "A session with curl" section: the commands a newcomer copies. */
function curlSection(): string {
  const readme = readFileSync(README_PATH, "utf8");
  const start = readme.indexOf("### A session with curl");
  const end = readme.indexOf("\n## ", start);
  if (start < 0 || end < 0) throw new Error('README has no "A session with curl" section');
  return readme.slice(start, end);
}
/** The address the docs use: `wrangler dev`'s default. */
const DOCUMENTED_ORIGIN = "http://localhost:8787";
/** curl's exit status when --max-time ends it, as step 3 of the docs says. */
const CURL_TIMED_OUT = 28;
const TOKYO_TIME = /Current time in Tokyo \(Asia\/Tokyo\): \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(\w+day\)/;

let dev: WranglerDev;

beforeAll(async () => {
  dev = await startWranglerDev();
});

afterAll(async () => {
  await dev?.stop();
});

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(`--- wrangler dev output ---\n${dev?.logs() ?? "(not started)"}`));
});

describe("the offline demo model behind wrangler dev", () => {
  let run: SseEvent[];
  let response: AssistantResponse;
  let sessionTools: unknown;

  beforeAll(async () => {
    const api = createApi(dev.url);
    const session = await api.createSession();
    sessionTools = (await api.snapshot(session)).tools;
    const stream = await api.openEvents(session);
    await api.send(session, "What time is it in Tokyo?");
    run = await stream.until("runEnd");
    await stream.cancel();
    response = await api.nextResponse(session, 5_000);
  });

  it("answers a time question by calling getTime for Tokyo", () => {
    const start = run.find((e) => e.event === "toolExecStart");
    expect(start?.json.toolName).toBe("getTime");
    const raw = start?.json.arguments;
    expect(typeof raw === "string" ? JSON.parse(raw) : raw).toEqual({ city: "Tokyo" });
    const end = run.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === start?.json.toolCallId);
    expect(end?.json.isError).toBe(false);
  });

  it("ends the run with a text answer that reports the time in Tokyo", () => {
    const runEnd = run.at(-1)!.json as { response?: AssistantResponse; stopReason?: string };
    expect(runEnd.stopReason).toBe("stop");
    expect(textOf(runEnd.response!)).toMatch(TOKYO_TIME);
    expect(
      run
        .filter((e) => e.event === "messageDelta")
        .map((e) => e.json.text)
        .join(""),
    ).toBe(textOf(runEnd.response!));
  });

  it("neither offers nor lists writeTool while WRITE_TOOL_ENABLED is off (wrangler.toml's default)", () => {
    expect(sessionTools).toEqual(expect.arrayContaining(["getTime", "getWeather", "listTools"]));
    expect(sessionTools).not.toContain("writeTool");
  });

  it("hands the same answer to GET responses/next", () => {
    expect(response).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(textOf(response)).toMatch(TOKYO_TIME);
  });
});

describe("the documented curl session, run as written", () => {
  let steps: StepResult[];

  beforeAll(async () => {
    const blocks = shellBlocksOf(curlSection());
    expect(blocks).toHaveLength(4);
    for (const block of blocks) expect(block).toContain(DOCUMENTED_ORIGIN);
    steps = await runShellSession(blocks.map((block) => block.replaceAll(DOCUMENTED_ORIGIN, dev.url)));
  });

  it("creates a session and prints its id and key (step 1)", () => {
    expect(steps[0]).toMatchObject({ exitCode: 0, stderr: "" });
    expect(steps[0]!.stdout).toMatch(/^\{"id":"[^"]+","key":"[^"]+"\}\n$/);
  });

  it("queues the message and prints its id (step 2)", () => {
    expect(steps[1]).toMatchObject({ exitCode: 0, stderr: "" });
    expect(JSON.parse(steps[1]!.stdout)).toEqual({ messageId: expect.any(String) });
  });

  it("prints the run's events as SSE and stops after --max-time (step 3)", () => {
    expect(steps[2]).toMatchObject({ exitCode: CURL_TIMED_OUT, stderr: "" });
    const events = [...steps[2]!.stdout.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe("runStart");
    expect(events).toEqual(expect.arrayContaining(["toolExecStart", "toolExecEnd", "messageDelta"]));
    expect(events.at(-1)).toBe("runEnd");
    expect(steps[2]!.stdout).toContain('"toolName":"getTime"');
    expect(steps[2]!.stdout).toMatch(/^retry: 1000$/m);
  });

  it("prints the final answer mentioning Tokyo (step 4)", () => {
    expect(steps[3]).toMatchObject({ exitCode: 0, stderr: "" });
    const message = JSON.parse(steps[3]!.stdout) as AssistantResponse;
    expect(message).toMatchObject({ role: "assistant", stopReason: "stop", model: "offline-demo" });
    expect(textOf(message)).toMatch(TOKYO_TIME);
  });
});
