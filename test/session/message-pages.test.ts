/**
 * History pagination (GET /v1/sessions/:id/messages?before=&limit=) and the snapshot's last page, and the
 * in-memory window: a session keeps only the newest part of its history in memory, and older messages
 * are read from SQLite when a client pages back.
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/core/index.ts";
import { windowStart } from "../../src/session/run/memory-window.ts";
import { MessageStore } from "../../src/session/storage/message-store.ts";
import { StepWrites } from "../../src/session/run/step-writes.ts";
import { api, createSession, llmRequests, nextResponse, script, send, snapshotOf, type TestSession } from "./support.ts";

type Page = { messages: { role: string; content: { type: string; text?: string }[] }[]; before: number | null };

async function page(session: TestSession, query = ""): Promise<Page> {
  const res = await api(`/v1/sessions/${session.id}/messages${query}`, { key: session.key });
  expect(res.status).toBe(200);
  return res.json();
}

const texts = (p: Page) => p.messages.map((m) => m.content.map((b) => b.text ?? b.type).join(""));

/** A session whose history is `turns` user/assistant pairs: "q0", "a0", "q1", "a1", … */
async function sessionWithTurns(turns: number): Promise<TestSession> {
  const session = await createSession();
  await script(session, ...Array.from({ length: turns }, (_, i) => ({ text: `a${i}` })));
  for (let i = 0; i < turns; i++) {
    await send(session, `q${i}`);
    await nextResponse(session);
  }
  return session;
}

describe("message pages", () => {
  it("returns the newest messages oldest first, with a cursor to the page before", async () => {
    const session = await sessionWithTurns(3);
    const newest = await page(session, "?limit=4");
    expect(texts(newest)).toEqual(["q1", "a1", "q2", "a2"]);
    expect(newest.before).not.toBeNull();
    const older = await page(session, `?limit=4&before=${newest.before}`);
    expect(texts(older)).toEqual(["q0", "a0"]);
    expect(older.before).toBeNull();
  });

  it("walks the whole history page by page, each message once", async () => {
    const session = await sessionWithTurns(5);
    const seen: string[] = [];
    let query = "?limit=3";
    for (;;) {
      const p = await page(session, query);
      seen.unshift(...texts(p));
      if (p.before === null) break;
      query = `?limit=3&before=${p.before}`;
    }
    expect(seen).toEqual(["q0", "a0", "q1", "a1", "q2", "a2", "q3", "a3", "q4", "a4"]);
  });

  it("gives the snapshot the last 50 messages and the cursor to the rest", async () => {
    const session = await createSession();
    // One reply with 60 tool calls: 1 user + 1 assistant + 60 results + 1 answer = 63 messages.
    await script(
      session,
      { toolCalls: Array.from({ length: 60 }, (_, i) => ({ id: `c${i}`, name: "slowEcho", arguments: { text: `r${i}`, ms: 0 } })) },
      { text: "done" },
    );
    await send(session, "go");
    await nextResponse(session);
    const snapshot = await snapshotOf(session);
    expect(snapshot.messages).toHaveLength(50);
    expect(snapshot.messages.at(-1)!.content).toEqual([{ type: "text", text: "done" }]);
    const rest = await page(session, `?before=${snapshot.messagesBefore}`);
    expect(rest.messages).toHaveLength(13);
    expect(rest.messages[0]!.role).toBe("user");
    expect(rest.before).toBeNull();
  });

  it("answers an empty page for a session with no history", async () => {
    const session = await createSession();
    expect(await page(session)).toEqual({ messages: [], before: null });
  });

  it("refuses a cursor that is not a positive integer, naming it", async () => {
    const session = await createSession();
    const res = await api(`/v1/sessions/${session.id}/messages?before=abc`, { key: session.key });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("before");
  });

  it("refuses a limit above 500, naming it", async () => {
    const session = await createSession();
    const res = await api(`/v1/sessions/${session.id}/messages?limit=501`, { key: session.key });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("limit");
  });

  it("needs the session key: without it, the session answers as an unknown one", async () => {
    const session = await createSession();
    expect((await api(`/v1/sessions/${session.id}/messages`)).status).toBe(404);
  });
});

describe("history window", () => {
  it("reads only the newest turns into memory, starting at a user message", async () => {
    const session = await sessionWithTurns(6);
    const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id));
    const windowed = await runInDurableObject(stub, (_instance, state) =>
      new MessageStore(state.storage.sql, new StepWrites(state.storage)).window(200),
    );
    const shown = windowed.map((m) => (m.content[0] as { text?: string }).text);
    expect(shown.length).toBeLessThan(12);
    expect(shown.at(-1)).toBe("a5");
    expect(windowed[0]!.role).toBe("user");
  });

  it("reads no history into memory when a woken object only answers a snapshot", async () => {
    const session = await sessionWithTurns(3);
    const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id));
    await evictDurableObject(stub);
    expect((await snapshotOf(session)).messages).toHaveLength(6);
    const inMemory = await runInDurableObject(
      stub,
      (instance) => (instance as unknown as { session: { state: { messages: unknown[] } } }).session.state.messages.length,
    );
    expect(inMemory).toBe(0);
  });

  it("sends the LLM the same history after the object was evicted and woke again", async () => {
    const session = await sessionWithTurns(2);
    const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id));
    await evictDurableObject(stub);
    await script(session, { text: "a2" });
    await send(session, "q2");
    await nextResponse(session);
    const requests = await llmRequests(session);
    const sent = requests.at(-1)!.body.messages.map((m) => (typeof m.content === "string" ? m.content : m.role));
    expect(sent).toEqual([`Test agent [script:${session.scriptId}]`, "q0", "a0", "q1", "a1", "q2"]);
  });

  it("starts a window inside one long turn at an assistant message, never at a tool result", () => {
    const call = (i: number): AgentMessage =>
      ({
        role: "assistant",
        content: [{ type: "toolCall", id: `c${i}`, name: "t", arguments: {} }],
        stopReason: "toolUse",
        timestamp: 0,
      }) as AgentMessage;
    const result = (i: number): AgentMessage =>
      ({
        role: "toolResult",
        toolCallId: `c${i}`,
        toolName: "t",
        content: [{ type: "text", text: "r" }],
        isError: false,
        timestamp: 0,
      }) as AgentMessage;
    const history: AgentMessage[] = [{ role: "user", content: [{ type: "text", text: "go" }], timestamp: 0 }];
    for (let i = 0; i < 100; i++) history.push(call(i), result(i));
    const start = windowStart(history, 10, () => 1);
    expect(start).toBeGreaterThan(0);
    expect(history[start]!.role).toBe("assistant");
    expect(history.length - start).toBeLessThanOrEqual(22);
  });
});
