/**
 * Compaction in a session (docs/compaction.md), against the scripted mock LLM: sessions on
 * "mock-model-small", whose window MODEL_CONTEXT_WINDOWS states as 3,000 tokens (wrangler.test.toml), so a
 * few 4,000-character messages pass COMPACT_AT (0.8) of it. The summary call takes the scripted replies
 * marked `summary: true`. Checked: the threshold and the summary call (no tools), the request after it,
 * history and the snapshot's contextSummary, usage, recovery from OpenAI's real context_length_exceeded
 * 400, and a failed summary call falling back to trimming.
 */
import { describe, expect, it } from "vitest";
import { contextLengthExceeded } from "../../support/mock-openai-server.ts";
import { api, createSession, llmRequests, nextResponse, openEvents, script, send, snapshotOf, type TestSession } from "./support.ts";

const long = (letter: string, chars = 4_000) => `${letter} ${letter.repeat(chars)}`;

const newSession = () => createSession({ model: "mock-model-small", tools: [] });

async function turn(session: TestSession, text: string) {
  const events = await openEvents(session, (await snapshotOf(session)).lastEventSeq);
  expect((await send(session, text)).status).toBe(202);
  const seen = await events.until("runEnd");
  await events.cancel();
  await nextResponse(session);
  return seen;
}

const contentOf = (m: { content: unknown }) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

describe("compaction in a session", () => {
  it("summarises the oldest turns with no tools past COMPACT_AT of the model's window, keeping every message in history", async () => {
    const session = await newSession();
    await script(
      session,
      { text: "noted one", usage: { prompt_tokens: 1_000, completion_tokens: 5 } },
      { text: "noted two", usage: { prompt_tokens: 2_000, completion_tokens: 5 } },
      { text: "The user sent A and B.", usage: { prompt_tokens: 500, completion_tokens: 20 }, summary: true },
      { text: "noted three", usage: { prompt_tokens: 1_200, completion_tokens: 5 } },
    );
    for (const text of [long("A"), long("B")]) {
      const events = await turn(session, text);
      expect(events.some((e) => e.event === "contextCompacted")).toBe(false);
    }
    const events = await turn(session, long("C"));
    const compacted = events.filter((e) => e.event === "contextCompacted");
    expect(compacted).toHaveLength(1);
    expect(compacted[0]!.json).toMatchObject({ summarizedMessages: 4 });
    expect(compacted[0]!.json.tokensBefore).toBeGreaterThan(2_400);
    expect(compacted[0]!.json.tokensAfter).toBeLessThan(1_500);

    const requests = (await llmRequests(session)) as unknown as {
      body: { model: string; messages: { role: string; content: unknown }[]; tools?: unknown[] };
    }[];
    expect(requests).toHaveLength(4);
    const summaryCall = requests[2]!.body;
    // On the session's own model, with no tools.
    expect(summaryCall.model).toBe("mock-model-small");
    expect(summaryCall.tools ?? []).toEqual([]);
    expect(contentOf(summaryCall.messages[0]!)).toContain("working memory");
    expect(contentOf(summaryCall.messages[1]!)).toContain("User: A AAAA");
    expect(contentOf(summaryCall.messages[1]!)).not.toContain("C CCCC");
    // The answer's request: the system prompt, the summary, then the messages after it.
    const answerCall = requests[3]!.body.messages;
    expect(answerCall.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(contentOf(answerCall[1]!)).toContain("The user sent A and B.");
    expect(contentOf(answerCall[2]!)).toContain("C CCCC");

    const snapshot = await snapshotOf(session);
    expect(snapshot.contextSummary).toEqual({ text: "The user sent A and B.", summarizedMessages: 4 });
    expect(snapshot.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(snapshot.messages.some((m) => JSON.stringify(m).includes("The user sent A and B."))).toBe(false);
    // GET …/messages too: every original message, the summarised ones whole, and no summary among them.
    const page = (await (await api(`/v1/sessions/${session.id}/messages?limit=100`, { key: session.key })).json()) as {
      messages: { role: string; content: { type: string; text?: string }[] }[];
    };
    expect(page.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(page.messages[0]!.content[0]!.text).toBe(long("A"));
    expect(page.messages.some((m) => JSON.stringify(m).includes("The user sent A and B."))).toBe(false);
    // The summary call's tokens count in the session's usage.
    expect(snapshot.usage).toEqual({ inputTokens: 4_700, outputTokens: 35, totalTokens: 4_735, budget: null });
  });

  it("compacts and tries the step once more when the model answers OpenAI's context_length_exceeded 400", async () => {
    const session = await newSession();
    await script(
      session,
      { text: "noted one" },
      contextLengthExceeded(3_000, 3_412),
      { text: "The user sent A.", summary: true },
      { text: "recovered" },
    );
    await turn(session, long("A", 2_000));
    const events = await turn(session, long("B", 2_000));
    expect(events.filter((e) => e.event === "contextCompacted")).toHaveLength(1);
    expect(events.some((e) => e.event === "llmRetry" || e.event === "error")).toBe(false);
    expect(events.at(-1)!.json.response).toMatchObject({ content: [{ type: "text", text: "recovered" }] });
    const requests = (await llmRequests(session)) as unknown as { body: { messages: { role: string; content: unknown }[] } }[];
    // The refused request once (never retried as transient), the summary call, the step again.
    expect(requests).toHaveLength(4);
    expect(contentOf(requests[3]!.body.messages[1]!)).toContain("The user sent A.");
    expect((await snapshotOf(session)).contextSummary).toEqual({ text: "The user sent A.", summarizedMessages: 2 });
  });

  it("falls back to trimming when the summary call fails, and the run goes on", async () => {
    const session = await newSession();
    await script(
      session,
      { text: "noted one" },
      { status: 400, errorMessage: "summaries are not served here", summary: true },
      { text: "still here" },
    );
    await turn(session, long("A", 6_000));
    const events = await turn(session, long("B", 6_000));
    expect(events.some((e) => e.event === "contextCompacted")).toBe(false);
    expect(events.filter((e) => e.event === "contextTrimmed")).toHaveLength(1);
    expect(events.at(-1)!.json.response).toMatchObject({ content: [{ type: "text", text: "still here" }] });
    const snapshot = await snapshotOf(session);
    expect(snapshot.contextSummary).toBeNull();
    expect(snapshot.messages).toHaveLength(4);
  });
});
