import { describe, expect, it } from "vitest";
import { allowedModels, checkSessionModel, describeLlmSelection, selectLlmCall } from "../../src/llm/select-model.ts";
import type { WorkersAiBinding } from "../../src/llm/workers-ai-model.ts";
import { useMockOpenAi, userRequest } from "./fixtures.ts";

const mock = useMockOpenAi();

describe("selectLlmCall", () => {
  it("uses the offline model when no API key is set", async () => {
    const response = await selectLlmCall({})(userRequest("hello"), {});
    expect(response.model).toBe("offline-demo");
    expect(describeLlmSelection({ OPENAI_API_KEY: "  " })).toEqual({ kind: "offline" });
  });

  it("uses the OpenAI-compatible endpoint with the default model when a key is set", async () => {
    mock.server.enqueue({ text: "from the server" });
    const response = await selectLlmCall({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: mock.server.url })(userRequest("hello"), {});
    expect(response.content).toEqual([{ type: "text", text: "from the server" }]);
    expect(mock.server.requests.at(-1)?.body.model).toBe("gpt-4o-mini");
  });

  it("passes OPENAI_MODEL and MAX_RETRY_DELAY_MS through", () => {
    expect(describeLlmSelection({ OPENAI_API_KEY: "k", OPENAI_MODEL: "llama3", MAX_RETRY_DELAY_MS: "1500" })).toEqual({
      kind: "openai",
      model: "llama3",
      maxRetryDelayMs: 1500,
      stream: true,
    });
  });

  it('turns streaming off only when LLM_STREAM is "false"', () => {
    expect(describeLlmSelection({ OPENAI_API_KEY: "k", LLM_STREAM: "false" })).toMatchObject({ stream: false });
    expect(describeLlmSelection({ OPENAI_API_KEY: "k", LLM_STREAM: "yes" })).toMatchObject({ stream: true });
  });
});

describe("MODEL_PROVIDER", () => {
  const binding = (models: string[]): WorkersAiBinding => ({
    run: async (model) => {
      models.push(model);
      return { response: `answered by ${model}` };
    },
  });

  it("runs Workers AI through the AI binding with the function-calling default model", async () => {
    const models: string[] = [];
    const response = await selectLlmCall({ MODEL_PROVIDER: "workers-ai", LLM_STREAM: "false", AI: binding(models) })(userRequest("hi"), {});
    expect(models).toEqual(["@cf/meta/llama-3.3-70b-instruct-fp8-fast"]);
    expect(response).toMatchObject({
      provider: "workers-ai",
      content: [{ type: "text", text: "answered by @cf/meta/llama-3.3-70b-instruct-fp8-fast" }],
    });
  });

  it("runs a session's own model when it has one", async () => {
    const models: string[] = [];
    await selectLlmCall({ MODEL_PROVIDER: "workers-ai", LLM_STREAM: "false", AI: binding(models) }, { model: "@cf/other" })(
      userRequest("hi"),
      {},
    );
    expect(models).toEqual(["@cf/other"]);
  });

  it("stays offline with no key and no provider, even when an AI binding exists", async () => {
    const models: string[] = [];
    const response = await selectLlmCall({ AI: binding(models) })(userRequest("hello"), {});
    expect(response.model).toBe("offline-demo");
    expect(models).toEqual([]);
  });

  it("fails every run with a message naming the choices when MODEL_PROVIDER is unknown", async () => {
    await expect(selectLlmCall({ MODEL_PROVIDER: "anthropic" })(userRequest("hi"), {})).rejects.toThrow(
      'MODEL_PROVIDER must be one of openai, workers-ai, offline (or empty), not "anthropic"',
    );
  });
});

describe("the MODELS allowlist", () => {
  it("allows only the configured model by default", () => {
    const env = { MODEL_PROVIDER: "workers-ai", WORKERS_AI_MODEL: "@cf/a" };
    expect(allowedModels(env)).toEqual(["@cf/a"]);
    expect(checkSessionModel(env, undefined)).toEqual({ ok: true, model: "@cf/a" });
    expect(checkSessionModel(env, "@cf/a")).toEqual({ ok: true, model: "@cf/a" });
  });

  it("allows the listed models and names them all when another is asked for", () => {
    const env = { OPENAI_API_KEY: "k", OPENAI_MODEL: "gpt-4o-mini", MODELS: "gpt-4o, llama3.2 ," };
    expect(allowedModels(env)).toEqual(["gpt-4o-mini", "gpt-4o", "llama3.2"]);
    expect(checkSessionModel(env, "llama3.2")).toEqual({ ok: true, model: "llama3.2" });
    expect(checkSessionModel(env, "o1")).toEqual({
      ok: false,
      message: 'model "o1" is not allowed here; allowed: gpt-4o-mini, gpt-4o, llama3.2 (the MODELS setting lists them)',
    });
  });
});
