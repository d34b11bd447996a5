/**
 * Model fallback in a deployed session: `wrangler dev` with MODEL_FALLBACKS against the mock OpenAI
 * server. A step whose model still fails after its retries goes on with the fallback (event
 * `modelFallback`), the next step asks the session's model first again, and a request error (400) never
 * falls back: the run ends with the model's error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockOpenAi, type MockOpenAiServer } from "../../support/mock-openai-server.ts";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { createApi, type E2eApi, textOf } from "./support/http-api.ts";

/** One call's attempts: the first and its three retries. */
const failing = (status: number) => Array.from({ length: 4 }, () => ({ status, errorMessage: `failed with ${status}` }));

describe("model fallback through wrangler dev", () => {
  let llm: MockOpenAiServer;
  let dev: WranglerDev;
  let api: E2eApi;

  beforeAll(async () => {
    llm = await startMockOpenAi();
    dev = await startWranglerDev({
      vars: {
        OPENAI_API_KEY: "test-key",
        OPENAI_BASE_URL: llm.url,
        OPENAI_MODEL: "main-model",
        MODELS: "main-model,backup-model",
        MODEL_FALLBACKS: "backup-model",
        MAX_RETRY_DELAY_MS: "5",
      },
    });
    api = createApi(dev.url);
  }, 90_000);
  afterAll(async () => {
    await dev?.stop();
    await llm?.close();
  });

  it("goes on with the fallback for the failing step, then asks the session's model first again", async () => {
    llm.reset();
    llm.enqueue(
      ...failing(503),
      { toolCalls: [{ id: "call_f1", name: "getTime", arguments: { timezone: "UTC" } }] },
      { text: "It is noon." },
    );
    const session = await api.createSession();
    const events = await api.openEvents(session);
    await api.send(session, "what time is it?");
    const seen = await events.until("runEnd");
    await events.cancel();

    expect(llm.requests.map((r) => r.body.model)).toEqual([...Array(4).fill("main-model"), "backup-model", "main-model"]);
    const fallbacks = seen.filter((e) => e.event === "modelFallback").map((e) => e.json);
    expect(fallbacks).toEqual([
      expect.objectContaining({ from: "main-model", to: "backup-model", reason: expect.stringContaining("503") }),
    ]);
    expect(seen.at(-1)?.json).toMatchObject({ type: "runEnd", stopReason: "stop" });
    expect(textOf(await api.nextResponse(session))).toBe("It is noon.");
  });

  it("never falls back on a request error", async () => {
    llm.reset();
    llm.enqueue({ status: 400, errorMessage: "bad request: unknown parameter" });
    const session = await api.createSession();
    const events = await api.openEvents(session);
    await api.send(session, "hello");
    const seen = await events.until("runEnd");
    await events.cancel();

    expect(llm.requests.map((r) => r.body.model)).toEqual(["main-model"]);
    expect(seen.some((e) => e.event === "modelFallback")).toBe(false);
    expect(seen.at(-1)?.json).toMatchObject({ type: "runEnd", stopReason: "error" });
  });
});
