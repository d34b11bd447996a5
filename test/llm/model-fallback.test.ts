import { describe, expect, it } from "vitest";
import type { ModelFallbackInfo } from "../../src/llm/model-fallback.ts";
import { type LlmEnv, selectLlmCall } from "../../src/llm/select-model.ts";
import type { WorkersAiBinding } from "../../src/llm/workers-ai-model.ts";
import { useMockOpenAi, userRequest } from "./fixtures.ts";

const mock = useMockOpenAi();

/** Four failures use up one call's attempts (the first and three retries). */
const failing = (status: number) => Array.from({ length: 4 }, () => ({ status }));

function session(fallbacks: string, binding?: WorkersAiBinding) {
  const events: ModelFallbackInfo[] = [];
  const env: LlmEnv = {
    OPENAI_API_KEY: "test-key",
    OPENAI_BASE_URL: mock.server.url,
    OPENAI_MODEL: "primary-model",
    MAX_RETRY_DELAY_MS: "1",
    LLM_STREAM: "false",
    MODEL_FALLBACKS: fallbacks,
    ...(binding ? { AI: binding } : {}),
  };
  const llm = selectLlmCall(env, { model: "primary-model", onFallback: (info) => void events.push(info) });
  const models = () => mock.server.requests.map((r) => r.body.model);
  return { llm, events, models };
}

describe("model fallback (MODEL_FALLBACKS)", () => {
  it("goes on with the first fallback when the session's model still fails after its retries", async () => {
    const { llm, events, models } = session("backup-model");
    mock.server.enqueue(...failing(503), { text: "from the backup" });
    const response = await llm(userRequest("hi"), {});
    expect(response.content).toEqual([{ type: "text", text: "from the backup" }]);
    expect(models()).toEqual(["primary-model", "primary-model", "primary-model", "primary-model", "backup-model"]);
    expect(events).toEqual([{ from: "primary-model", to: "backup-model", reason: expect.stringContaining("503") }]);
  });

  it("tries the fallbacks in order, across providers (workers-ai:<model> through the AI binding)", async () => {
    const asked: string[] = [];
    const binding: WorkersAiBinding = {
      async run(model) {
        asked.push(model);
        return { response: "from Workers AI", usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
      },
    };
    const { llm, events, models } = session("backup-model, workers-ai:@cf/some/model", binding);
    mock.server.enqueue(...failing(500), ...failing(429));
    const response = await llm(userRequest("hi"), {});
    expect(response.content).toEqual([{ type: "text", text: "from Workers AI" }]);
    expect(models().filter((m) => m === "backup-model")).toHaveLength(4);
    expect(asked).toEqual(["@cf/some/model"]);
    expect(events.map(({ from, to }) => [from, to])).toEqual([
      ["primary-model", "backup-model"],
      ["backup-model", "workers-ai:@cf/some/model"],
    ]);
  });

  it("starts the next call with the session's model again", async () => {
    const { llm, models } = session("backup-model");
    mock.server.enqueue(...failing(502), { text: "backup" }, { text: "primary again" });
    await llm(userRequest("one"), {});
    const second = await llm(userRequest("two"), {});
    expect(second.content).toEqual([{ type: "text", text: "primary again" }]);
    expect(models().at(-1)).toBe("primary-model");
  });

  it("never falls back on a request error (400)", async () => {
    const { llm, events, models } = session("backup-model");
    mock.server.enqueue({ status: 400, errorMessage: "bad request" }, { text: "must not be asked" });
    await expect(llm(userRequest("hi"), {})).rejects.toThrow(/400/);
    expect(events).toEqual([]);
    expect(models()).toEqual(["primary-model"]);
  });

  it("fails with the last model's error when every fallback fails too", async () => {
    const { llm, events } = session("backup-model");
    mock.server.enqueue(...failing(500), ...failing(503));
    await expect(llm(userRequest("hi"), {})).rejects.toThrow(/503/);
    expect(events).toHaveLength(1);
  });
});
