/**
 * Helpers for integration tests that drive the Worker through SELF.fetch: sessions with a scripted
 * model, and an incremental SSE reader that parses events as bytes arrive.
 */
import { SELF } from "cloudflare:test";
import { inject } from "vitest";
import type { MockReply } from "../../support/mock-openai-server.ts";
import { SseReader } from "../support/sse-reader.ts";

export { SseReader, type SseEvent } from "../support/sse-reader.ts";

export type TestSession = { id: string; key: string; scriptId: string; auth: Record<string, string> };

export async function api(path: string, init: RequestInit & { key?: string; json?: unknown } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("authorization", `Bearer ${init.key}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  return SELF.fetch(`http://edge.test${path}`, { ...init, headers, body });
}

export async function createSession(options: Record<string, unknown> = {}): Promise<TestSession> {
  const scriptId = crypto.randomUUID();
  const res = await api("/v1/sessions", {
    method: "POST",
    json: { systemPrompt: `Test agent [script:${scriptId}]`, ...options },
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  const { id, key } = (await res.json()) as { id: string; key: string };
  return { id, key, scriptId, auth: { authorization: `Bearer ${key}` } };
}

export type SnapshotMessage = {
  role: string;
  content: { type: string; text?: string; id?: string }[];
  toolCallId?: string;
  isError?: boolean;
  stopReason?: string;
  errorMessage?: string;
};

export type Snapshot = { status: string; messages: SnapshotMessage[]; queues: Record<string, number> };

export async function snapshotOf(session: TestSession): Promise<Snapshot> {
  const res = await api(`/v1/sessions/${session.id}`, { key: session.key });
  if (res.status !== 200) throw new Error(`snapshot failed: ${res.status}`);
  return res.json();
}

export async function script(session: TestSession, ...replies: MockReply[]): Promise<void> {
  const res = await fetch(`${inject("controlUrl")}/scripts/${session.scriptId}`, { method: "POST", body: JSON.stringify(replies) });
  if (!res.ok) throw new Error(`scripting failed: ${res.status}`);
}

export async function llmRequests(session: TestSession): Promise<{ body: { messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[] } }[]> {
  return (await fetch(`${inject("controlUrl")}/scripts/${session.scriptId}/requests`)).json();
}

export async function send(session: TestSession, content: unknown, kind: "messages" | "follow-ups" = "messages"): Promise<Response> {
  return api(`/v1/sessions/${session.id}/${kind}`, { method: "POST", key: session.key, json: { content } });
}

export async function nextResponse(session: TestSession, waitMs = 10_000): Promise<Record<string, unknown>> {
  const res = await api(`/v1/sessions/${session.id}/responses/next?waitMs=${waitMs}`, { key: session.key });
  if (res.status !== 200) throw new Error(`no response: ${res.status}`);
  return res.json();
}

export async function openEvents(session: TestSession, lastEventId?: number | string): Promise<SseReader> {
  const query = lastEventId === undefined ? "" : `?lastEventId=${lastEventId}`;
  const res = await api(`/v1/sessions/${session.id}/events${query}`, { key: session.key });
  if (res.status !== 200) throw new Error(`events failed: ${res.status} ${await res.text()}`);
  return new SseReader(res);
}
