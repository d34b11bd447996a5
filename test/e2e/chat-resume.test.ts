/**
 * useChat's transport against `wrangler dev`, with the AI SDK's own client code in Node
 * (DefaultChatTransport, readUIMessageStream) and the mock OpenAI server: a /chat stream survives two 500s
 * from the model's endpoint and delivers the answer (workerd used to cancel it as hung); reconnectToStream
 * mid-run gets the whole answer from the run's start, and null (204) once the run is over.
 */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockOpenAi, type MockOpenAiServer } from "../../support/mock-openai-server.ts";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";

const textOf = (message: UIMessage | undefined) => (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");

async function lastMessageOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({ stream, terminateOnError: true })) last = message;
  return last;
}

describe("useChat's transport through wrangler dev", () => {
  let llm: MockOpenAiServer;
  let dev: WranglerDev;

  beforeAll(async () => {
    llm = await startMockOpenAi();
    dev = await startWranglerDev({
      vars: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "mock-model", MAX_RETRY_DELAY_MS: "50" },
    });
  }, 90_000);
  afterAll(async () => {
    await dev?.stop();
    await llm?.close();
  });

  const newSession = async () => (await (await fetch(`${dev.url}/v1/sessions`, { method: "POST" })).json()) as { id: string; key: string };
  const transportFor = (session: { id: string; key: string }) =>
    new DefaultChatTransport<UIMessage>({
      api: `${dev.url}/v1/sessions/${session.id}/chat`,
      headers: { authorization: `Bearer ${session.key}` },
    });

  it("delivers the answer after the endpoint answered 500 twice", async () => {
    llm.enqueue(
      { status: 500, errorMessage: "overloaded" },
      { status: 500, errorMessage: "overloaded" },
      { text: "Here after two retries." },
    );
    const session = await newSession();
    const stream = await transportFor(session).sendMessages({
      trigger: "submit-message",
      chatId: session.id,
      messageId: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }],
      abortSignal: undefined,
    });
    expect(textOf(await lastMessageOf(stream))).toBe("Here after two retries.");
    expect(dev.logs()).not.toContain("hung");
  });

  it("resumes a run in progress from its start and answers null once it is over", async () => {
    const answer = Array.from({ length: 20 }, (_, i) => `r${i}`).join(" ");
    llm.enqueue({ text: answer, chunkDelayMs: 150 }); // 3 s: still running when the reconnect comes, even on a loaded machine
    const session = await newSession();
    const auth = { authorization: `Bearer ${session.key}`, "content-type": "application/json" };
    expect(
      (
        await fetch(`${dev.url}/v1/sessions/${session.id}/messages`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ content: "go" }),
        })
      ).status,
    ).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 400)); // some words streamed and stored already
    const resumed = await transportFor(session).reconnectToStream({ chatId: session.id });
    expect(resumed).not.toBeNull();
    expect(textOf(await lastMessageOf(resumed!))).toBe(answer);
    expect(await transportFor(session).reconnectToStream({ chatId: session.id })).toBeNull();
  });
});
