/**
 * Helpers for integration tests that drive the Worker in workerd: sessions with a scripted model, created
 * and read through the client SDK (its fetch is SELF.fetch), raw requests (`api`, `send`) where a test
 * checks exact statuses or sends malformed input, and an incremental SSE reader for wire-level checks.
 */
import { env, SELF } from "cloudflare:test";
import { inject } from "vitest";
import type { AgentSession } from "../../src/session/agent-session.ts";
import type { ScriptedReply } from "../support/scripted-llm.ts";
import { createClient, type CreateSessionOptions, type SessionHandle, type SessionSnapshot } from "../../src/client/index.ts";
import { apiRequestInit, type ApiInit } from "../support/http.ts";
import { SseReader } from "../support/sse-reader.ts";
import { app } from "../../src/http/app.ts";

export { SseReader, type SseEvent } from "../support/sse-reader.ts";

export type TestSession = { id: string; key: string; scriptId: string; handle: SessionHandle };

const BASE_URL = "http://edge.test";

/** The client SDK against the Worker under test. */
export const client = createClient({ baseUrl: BASE_URL, fetch: (input, init) => SELF.fetch(input, init) });

/** The session's Durable Object, for tests that reach into its storage or fire its alarm. */
export const stubOf = (session: TestSession) =>
  env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id)) as DurableObjectStub<AgentSession>;

export async function api(path: string, init: ApiInit = {}): Promise<Response> {
  return SELF.fetch(`${BASE_URL}${path}`, apiRequestInit(init));
}

/** A new session whose model replies are scripted per session (see `script`). */
export async function createSession(options: CreateSessionOptions = {}): Promise<TestSession> {
  const scriptId = crypto.randomUUID();
  const handle = await client.createSession({ systemPrompt: `Test agent [script:${scriptId}]`, ...options });
  return { id: handle.id, key: handle.key, scriptId, handle };
}

export type SnapshotMessage = {
  role: string;
  content: { type: string; text?: string; id?: string }[];
  toolCallId?: string;
  isError?: boolean;
  stopReason?: string;
  errorMessage?: string;
};

/** The SDK's snapshot, its messages loosely typed so tests can read any message's blocks without narrowing. */
export type Snapshot = Omit<SessionSnapshot, "messages"> & { messages: SnapshotMessage[] };

/** The snapshot (through the client SDK). */
export async function snapshotOf(session: TestSession): Promise<Snapshot> {
  return (await session.handle.snapshot()) as unknown as Snapshot;
}

/** Queues the session's model replies, in order; a compaction's summary call takes only replies marked `summary: true`. */
export async function script(session: TestSession, ...replies: ScriptedReply[]): Promise<void> {
  const res = await fetch(`${inject("controlUrl")}/scripts/${session.scriptId}`, { method: "POST", body: JSON.stringify(replies) });
  if (!res.ok) throw new Error(`scripting failed: ${res.status}`);
}

export async function llmRequests(
  session: TestSession,
): Promise<{ body: { messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[] } }[]> {
  return (await fetch(`${inject("controlUrl")}/scripts/${session.scriptId}/requests`)).json();
}

export async function send(session: TestSession, content: unknown, kind: "messages" | "follow-ups" = "messages"): Promise<Response> {
  return api(`/v1/sessions/${session.id}/${kind}`, { method: "POST", key: session.key, json: { content } });
}

export async function nextResponse(session: TestSession, waitMs = 10_000): Promise<Record<string, unknown>> {
  const message = await session.handle.takeResponse(waitMs);
  if (!message) throw new Error(`no response within ${waitMs} ms`);
  return message;
}

export async function openEvents(session: TestSession, lastEventId?: number | string): Promise<SseReader> {
  const query = lastEventId === undefined ? "" : `?lastEventId=${lastEventId}`;
  const res = await api(`/v1/sessions/${session.id}/events${query}`, { key: session.key });
  if (res.status !== 200) throw new Error(`events failed: ${res.status} ${await res.text()}`);
  return new SseReader(res);
}

/** The operator token the budget tests run the router with (PUT …/token-budget needs API_TOKEN). */
export const OPERATOR_TOKEN = "operator-token-for-budget-tests";

/** The operator sets the session's token budget (PUT …/token-budget with API_TOKEN, or `token`). */
export async function setBudget(session: { id: string }, tokenBudget: number, token = OPERATOR_TOKEN): Promise<Response> {
  return app.fetch(
    new Request(`http://edge.test/v1/sessions/${session.id}/token-budget`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ tokenBudget }),
    }),
    { ...env, API_TOKEN: OPERATOR_TOKEN },
  );
}
