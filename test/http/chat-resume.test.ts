/**
 * useChat's resume and stop against the Worker in workerd, read with the AI SDK's own client code:
 * DefaultChatTransport.reconnectToStream (what `useChat({resume: true})` calls) gets 204 when no run is
 * active and, mid-run, the whole answer from the run's first event, then live; a retried LLM call keeps
 * the /chat stream going; a dropped stream never aborts the run, and stop + the abort route ends it so
 * the next message gets its own run.
 */
import { SELF } from "cloudflare:test";
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { api, createSession, nextResponse, script, snapshotOf, type TestSession } from "../session/support.ts";

const transportFor = (session: TestSession) =>
  new DefaultChatTransport<UIMessage>({
    api: `http://edge.test/v1/sessions/${session.id}/chat`,
    headers: { authorization: `Bearer ${session.key}` },
    fetch: (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init),
  });

const userMessage = (text: string): UIMessage => ({ id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] });
const textOf = (message: UIMessage | undefined) => (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");

async function lastMessageOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({ stream, terminateOnError: false })) last = message;
  return last;
}

async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const out: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) out.push(chunk);
  return out;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("resuming a chat stream (GET …/chat/:chatId/stream)", () => {
  it("answers 204 when no run is active, which reconnectToStream reads as nothing to resume", async () => {
    const session = await createSession();
    const res = await api(`/v1/sessions/${session.id}/chat/any-chat/stream`, { key: session.key });
    expect(res.status).toBe(204);
    expect(await transportFor(session).reconnectToStream({ chatId: "any-chat" })).toBeNull();
  });

  it("refuses a request without the session's key as it refuses an unknown session (404)", async () => {
    const session = await createSession();
    expect((await api(`/v1/sessions/${session.id}/chat/c/stream`)).status).toBe(404);
  });

  it("rebuilds the active run's answer from its first event, then follows it live to the end", async () => {
    const session = await createSession();
    const text = "one two three four five six seven eight";
    await script(session, { text, chunkDelayMs: 80 });
    expect(
      (await api(`/v1/sessions/${session.id}/messages`, { method: "POST", key: session.key, json: { content: "count" } })).status,
    ).toBe(202);
    // Part of the answer is already streamed (and stored) when the page "reloads".
    await waitFor(async () => {
      const res = await api(`/v1/sessions/${session.id}/events`, { key: session.key });
      const reader = res.body!.getReader();
      let seen = "";
      const deadline = Date.now() + 200;
      while (Date.now() < deadline && !seen.includes("three")) {
        const { value, done } = await Promise.race([
          reader.read(),
          new Promise<{ value: undefined; done: true }>((r) => setTimeout(() => r({ value: undefined, done: true }), 200)),
        ]);
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      await reader.cancel();
      return seen.includes("three");
    }, "the answer to start streaming");
    const stream = await transportFor(session).reconnectToStream({ chatId: session.id });
    expect(stream).not.toBeNull();
    const message = await lastMessageOf(stream!);
    expect(message?.role).toBe("assistant");
    expect(textOf(message)).toBe(text);
    expect((await snapshotOf(session)).status).toBe("idle");
  });
});

describe("a /chat stream across a transient provider error", () => {
  it("keeps streaming through two 500s and delivers the answer, with retry notices on the way", async () => {
    const session = await createSession();
    await script(
      session,
      { status: 500, errorMessage: "overloaded" },
      { status: 500, errorMessage: "overloaded" },
      { text: "Recovered answer." },
    );
    const stream = await transportFor(session).sendMessages({
      trigger: "submit-message",
      chatId: session.id,
      messageId: undefined,
      messages: [userMessage("hi")],
      abortSignal: undefined,
    });
    const chunks = await chunksOf(stream);
    const notices = chunks.filter((c) => c.type === "data-notice") as { data: { level: string } }[];
    expect(notices.map((n) => n.data.level)).toEqual(["retry", "retry"]);
    const deltas = chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("");
    expect(deltas).toBe("Recovered answer.");
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
  });
});

describe("disconnect and stop", () => {
  it("lets the run finish when the page drops its /chat stream", async () => {
    const session = await createSession();
    await script(session, { text: "still answered after the page left", chunkDelayMs: 30 });
    const controller = new AbortController();
    const stream = await transportFor(session).sendMessages({
      trigger: "submit-message",
      chatId: session.id,
      messageId: undefined,
      messages: [userMessage("hi")],
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => undefined);
    const answer = await nextResponse(session);
    expect((answer.content as { text?: string }[]).map((b) => b.text).join("")).toBe("still answered after the page left");
  });

  it("ends the run on stop + the abort route, and the next message gets its own run and answer", async () => {
    const session = await createSession();
    await script(session, { text: "a b c d e f g h i j k l m n o p", chunkDelayMs: 100 }, { text: "Second answer." });
    const controller = new AbortController();
    const transport = transportFor(session);
    const first = await transport.sendMessages({
      trigger: "submit-message",
      chatId: session.id,
      messageId: undefined,
      messages: [userMessage("long")],
      abortSignal: controller.signal,
    });
    const reader = first.getReader();
    await reader.read();
    // What the documented stop() does: close the page's stream, then abort the run.
    controller.abort();
    await reader.cancel().catch(() => undefined);
    expect((await api(`/v1/sessions/${session.id}/abort`, { method: "POST", key: session.key })).status).toBe(202);
    const second = await lastMessageOf(
      await transport.sendMessages({
        trigger: "submit-message",
        chatId: session.id,
        messageId: undefined,
        messages: [userMessage("next")],
        abortSignal: undefined,
      }),
    );
    expect(textOf(second)).toBe("Second answer.");
    const snapshot = await snapshotOf(session);
    const assistants = snapshot.messages.filter((m) => m.role === "assistant");
    expect(assistants.map((m) => m.stopReason)).toEqual(["aborted", "stop"]);
    expect(snapshot.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });
});
