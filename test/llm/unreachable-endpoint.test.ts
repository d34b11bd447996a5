/**
 * An unreachable model server's error names where the request went (the endpoint without user info or
 * query), so "LLM connection failed" is actionable. A real refused connection: a port just closed.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { createOpenAiLlmCall } from "../../src/llm/openai-chat-model.ts";
import { userRequest } from "./fixtures.ts";

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("an unreachable OpenAI-compatible endpoint", () => {
  it("fails with an error naming the URL it posted to", async () => {
    const port = await closedPort();
    const llm = createOpenAiLlmCall({ apiKey: "k", baseURL: `http://127.0.0.1:${port}/v1`, model: "m", maxRetries: 0 });
    const error = await llm(userRequest("hi"), {}).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toMatch(new RegExp(`^LLM connection failed: .*\\(POST http://127\\.0\\.0\\.1:${port}/v1/chat/completions\\)`));
  });
});
