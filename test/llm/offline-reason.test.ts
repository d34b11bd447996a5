/**
 * The offline demo model says why it is answering: MODEL_PROVIDER chose it (a key may be set and is not
 * used), or nothing is configured and there is no key. Built through selectLlmCall, as a session does.
 */
import { describe, expect, it } from "vitest";
import { selectLlmCall } from "../../src/llm/select-model.ts";
import { userRequest } from "./fixtures.ts";

const introduction = async (env: Record<string, string>) => {
  const response = await selectLlmCall(env)(userRequest("Tell me a joke"), {});
  return (response.content as { type: string; text?: string }[]).flatMap((b) => (b.type === "text" ? [b.text ?? ""] : [])).join("");
};

describe("the offline model's introduction", () => {
  it('names MODEL_PROVIDER="offline" when that chose it, even with a key set', async () => {
    const text = await introduction({ MODEL_PROVIDER: "offline", OPENAI_API_KEY: "sk-set" });
    expect(text).toContain('I am the offline demo model (MODEL_PROVIDER is "offline")');
    expect(text).not.toContain("OPENAI_API_KEY");
  });

  it("names the missing key when nothing is configured", async () => {
    expect(await introduction({})).toContain("I am the offline demo model (no OPENAI_API_KEY is set)");
  });
});
