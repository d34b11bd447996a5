import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeLlmSelection, parseMaxRetryDelayMs, selectLlmCall } from "../../src/llm/select-model.ts";
import { startMockOpenAi, type MockOpenAiServer } from "../../support/mock-openai-server.ts";
import { userRequest } from "./fixtures.ts";

let server: MockOpenAiServer;
beforeAll(async () => {
  server = await startMockOpenAi();
});
afterAll(() => server.close());

describe("selectLlmCall", () => {
  it("uses the offline model when no API key is set", async () => {
    const response = await selectLlmCall({})(userRequest("hello"), {});
    expect(response.model).toBe("offline-demo");
    expect(describeLlmSelection({ OPENAI_API_KEY: "  " })).toEqual({ kind: "offline" });
  });

  it("uses the OpenAI-compatible endpoint with the default model when a key is set", async () => {
    server.enqueue({ text: "from the server" });
    const response = await selectLlmCall({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.url })(userRequest("hello"), {});
    expect(response.content).toEqual([{ type: "text", text: "from the server" }]);
    expect(server.requests.at(-1)?.body.model).toBe("gpt-4o-mini");
  });

  it("passes OPENAI_MODEL and MAX_RETRY_DELAY_MS through", () => {
    expect(describeLlmSelection({ OPENAI_API_KEY: "k", OPENAI_MODEL: "llama3", MAX_RETRY_DELAY_MS: "1500" })).toEqual({ kind: "openai", model: "llama3", maxRetryDelayMs: 1500, stream: true });
  });

  it("turns streaming off only when OPENAI_STREAM is \"false\"", () => {
    expect(describeLlmSelection({ OPENAI_API_KEY: "k", OPENAI_STREAM: "false" })).toMatchObject({ stream: false });
    expect(describeLlmSelection({ OPENAI_API_KEY: "k", OPENAI_STREAM: "yes" })).toMatchObject({ stream: true });
  });
});

describe("parseMaxRetryDelayMs", () => {
  it("accepts a non-negative number of milliseconds", () => {
    expect(parseMaxRetryDelayMs("0")).toBe(0);
    expect(parseMaxRetryDelayMs(" 2500 ")).toBe(2500);
  });

  it("falls back to 30000 for anything else", () => {
    for (const raw of [undefined, "", "-1", "5s", "abc", "1e3", "Infinity", "0x10"]) expect(parseMaxRetryDelayMs(raw)).toBe(30_000);
  });
});
