/**
 * POST /v1/sessions/:id/chat read by the AI SDK's own client side: DefaultChatTransport posts what useChat
 * posts and parses the UI message stream; readUIMessageStream assembles the assistant message from it.
 */
import { SELF } from "cloudflare:test";
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { api, createSession, script, snapshotOf, type TestSession } from "../session/support.ts";

function transportFor(session: TestSession): DefaultChatTransport<UIMessage> {
  return new DefaultChatTransport<UIMessage>({
    api: `http://edge.test/v1/sessions/${session.id}/chat`,
    headers: { authorization: `Bearer ${session.key}` },
    fetch: (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init),
  });
}

const userMessage = (text: string): UIMessage => ({ id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] });

/** Sends `messages` like useChat does and returns the assistant message as the stream leaves it. */
async function chat(session: TestSession, messages: UIMessage[], continuing?: UIMessage): Promise<UIMessage> {
  const stream = await transportFor(session).sendMessages({
    trigger: "submit-message",
    chatId: session.id,
    messageId: undefined,
    messages,
    abortSignal: undefined,
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({ stream, message: continuing, terminateOnError: false })) last = message;
  if (!last) throw new Error("the stream produced no message");
  return last;
}

type ToolPart = {
  type: string;
  toolName?: string;
  toolCallId?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string };
};
const toolParts = (message: UIMessage) => message.parts.filter((p) => p.type === "dynamic-tool") as ToolPart[];
const textOf = (message: UIMessage) => message.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");

describe("the chat endpoint (AI SDK UI message stream v1)", () => {
  it("answers with the v1 stream header, JSON data lines and a closing [DONE]", async () => {
    const session = await createSession();
    await script(session, { text: "Hello there" });
    const res = await api(`/v1/sessions/${session.id}/chat`, {
      method: "POST",
      key: session.key,
      json: { id: "c1", messages: [userMessage("hi")], trigger: "submit-message" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const lines = (await res.text()).split("\n").filter((l) => l.startsWith("data: "));
    expect(lines.at(-1)).toBe("data: [DONE]");
    const types = lines.slice(0, -1).map((l) => (JSON.parse(l.slice(6)) as { type: string }).type);
    expect(types).toEqual(["start", "start-step", "text-start", "text-delta", "text-end", "finish-step", "finish"]);
  });

  it("gives useChat the model's text, built from the streamed deltas", async () => {
    const session = await createSession();
    await script(session, { text: "The answer is 42." });
    const message = await chat(session, [userMessage("what is the answer?")]);
    expect(message.role).toBe("assistant");
    expect(textOf(message)).toBe("The answer is 42.");
    expect((await snapshotOf(session)).messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("shows tool calls as tool parts with their input and output, and a failing tool as an output error", async () => {
    const session = await createSession();
    await script(
      session,
      {
        toolCalls: [
          { id: "t1", name: "slowEcho", arguments: { text: "ping", ms: 3 } },
          { id: "t2", name: "boom", arguments: {} },
        ],
      },
      { text: "One echoed, one broke." },
    );
    const message = await chat(session, [userMessage("use tools")]);
    const [echo, boom] = toolParts(message);
    expect(echo).toMatchObject({
      toolName: "slowEcho",
      state: "output-available",
      input: { text: "ping", ms: 3 },
      output: { content: [{ type: "text", text: "echo: ping" }] },
    });
    expect(boom).toMatchObject({ toolName: "boom", state: "output-error", errorText: "boom went the tool" });
    expect(textOf(message)).toBe("One echoed, one broke.");
  });

  it("stops at an approval request, and continues the same message when useChat sends the answer", async () => {
    const session = await createSession({ requireApproval: ["slowEcho"] });
    await script(
      session,
      { toolCalls: [{ id: "a1", name: "slowEcho", arguments: { text: "approved", ms: 3 } }] },
      { text: "Done after approval." },
    );
    const first = [userMessage("echo with approval")];
    const asking = await chat(session, first);
    const [part] = toolParts(asking);
    expect(part).toMatchObject({ toolName: "slowEcho", state: "approval-requested" });

    // What useChat's addToolApprovalResponse leaves in the message before it sends the chat again.
    const answered = {
      ...asking,
      parts: asking.parts.map((p) =>
        p === (part as unknown) ? { ...p, state: "approval-responded", approval: { id: part!.approval!.id, approved: true } } : p,
      ),
    } as UIMessage;
    const final = await chat(session, [...first, answered], answered);
    expect(toolParts(final)).toHaveLength(1);
    const [done] = toolParts(final);
    expect(done).toMatchObject({ toolName: "slowEcho", state: "output-available", output: { content: [{ text: "echo: approved" }] } });
    expect(textOf(final)).toBe("Done after approval.");
  });

  it("reports a failed run as an error part the client sees", async () => {
    const session = await createSession();
    await script(session, { status: 400, errorMessage: "bad request to the model" });
    const errors: string[] = [];
    const stream = await transportFor(session).sendMessages({
      trigger: "submit-message",
      chatId: session.id,
      messageId: undefined,
      messages: [userMessage("fail")],
      abortSignal: undefined,
    });
    for await (const _ of readUIMessageStream<UIMessage>({ stream, onError: (e) => errors.push(String(e)) })) void _;
    expect(errors.join("\n")).toMatch(/model|400|bad request/i);
  });

  it("refuses a chat whose last message is not a user message (400), and a wrong key (404, as an unknown session)", async () => {
    const session = await createSession();
    const assistantLast = await api(`/v1/sessions/${session.id}/chat`, {
      method: "POST",
      key: session.key,
      json: { messages: [{ id: "a", role: "assistant", parts: [{ type: "text", text: "hi" }] }] },
    });
    expect(assistantLast.status).toBe(400);
    expect(await assistantLast.text()).toContain("the last message must be a user message");
    const wrongKey = await api(`/v1/sessions/${session.id}/chat`, {
      method: "POST",
      key: "sk_wrong",
      json: { messages: [userMessage("hi")] },
    });
    expect(wrongKey.status).toBe(404);
  });
});
