/**
 * Workers AI under `npm start` (wrangler dev --local): the binding throws "Binding AI needs to be run
 * remotely" at every attempt. That is a configuration error: reported once with the fix, never retried.
 */
import { describe, expect, it } from "vitest";
import { createWorkersAiLlmCall, type WorkersAiBinding } from "../../src/llm/workers-ai-model.ts";
import { userRequest } from "./fixtures.ts";

describe("Workers AI without its remote proxy", () => {
  it("fails at the first attempt with a message saying how to run locally", async () => {
    let attempts = 0;
    const retries: unknown[] = [];
    const binding: WorkersAiBinding = {
      run: async () => {
        attempts++;
        throw new Error("Binding AI needs to be run remotely");
      },
    };
    const llm = createWorkersAiLlmCall({ binding, model: "@cf/x", initialRetryDelayMs: 1 });
    const error = await llm(userRequest("hi"), { onRetry: (info: unknown) => retries.push(info) }).then(
      () => undefined,
      (err: unknown) => err as Error & { retryable?: boolean; kind?: string },
    );
    expect(attempts).toBe(1);
    expect(retries).toEqual([]);
    expect(error).toMatchObject({ kind: "config", retryable: false });
    expect(error?.message).toContain("Workers AI does not run under `npm start` (Binding AI needs to be run remotely)");
    expect(error?.message).toContain("set MODEL_PROVIDER in .dev.vars");
  });
});
