/**
 * A session's request budget (docs/compaction.md): MAX_CONTEXT_TOKENS, or the smallest window
 * MODEL_CONTEXT_WINDOWS states for the session's model or one of its MODEL_FALLBACKS (a fallback gets the
 * same request, so it must fit too).
 */
import { describe, expect, it } from "vitest";
import { contextTokens } from "../../src/session/run/memory-window.ts";

describe("a session's request budget", () => {
  const windows = "small=3000,tiny=1500,huge=500000,@cf/meta/llama-3.1-8b-instruct=2500";

  it("is MAX_CONTEXT_TOKENS when no window is stated for the model", () => {
    expect(contextTokens({ MAX_CONTEXT_TOKENS: "8000" }, "gpt-4o")).toBe(8_000);
    expect(contextTokens({ MAX_CONTEXT_TOKENS: "8000", MODEL_CONTEXT_WINDOWS: windows }, "gpt-4o")).toBe(8_000);
    expect(contextTokens({ MAX_CONTEXT_TOKENS: "8000", MODEL_CONTEXT_WINDOWS: windows })).toBe(8_000);
  });

  it("takes the session model's window when it is smaller, never a larger one", () => {
    expect(contextTokens({ MAX_CONTEXT_TOKENS: "8000", MODEL_CONTEXT_WINDOWS: windows }, "small")).toBe(3_000);
    expect(contextTokens({ MAX_CONTEXT_TOKENS: "8000", MODEL_CONTEXT_WINDOWS: windows }, "huge")).toBe(8_000);
  });

  it("fits the smallest window among the model's fallbacks, a Workers AI one under either name", () => {
    const env = { MAX_CONTEXT_TOKENS: "8000", MODEL_CONTEXT_WINDOWS: windows };
    expect(contextTokens({ ...env, MODEL_FALLBACKS: "huge,small" }, "gpt-4o")).toBe(3_000);
    expect(contextTokens({ ...env, MODEL_FALLBACKS: "tiny" }, "small")).toBe(1_500);
    expect(contextTokens({ ...env, MODEL_FALLBACKS: "workers-ai:@cf/meta/llama-3.1-8b-instruct" }, "gpt-4o")).toBe(2_500);
    expect(contextTokens({ ...env, MODEL_FALLBACKS: "workers-ai:small" }, "gpt-4o")).toBe(3_000);
  });

  it("finds no window for a model named like an Object method", () => {
    expect(contextTokens({ MAX_CONTEXT_TOKENS: "8000", MODEL_CONTEXT_WINDOWS: windows, MODEL_FALLBACKS: "constructor" }, "toString")).toBe(
      8_000,
    );
  });
});
