/**
 * Helpers for integration tests that drive the Worker through SELF.fetch: sessions with a scripted
 * model, and an incremental SSE reader that parses events as bytes arrive.
 */
import { SELF } from "cloudflare:test";
import { inject } from "vitest";
import type { MockReply } from "../support/mock-openai-server.ts";

export type SseEvent = { id?: string; event?: string; data: string; json: Record<string, unknown> & { type: string; seq: number } };

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

/** Reads an SSE body incrementally; `next()` resolves with each event as soon as its bytes arrive. */
export class SseReader {
  private buffer = "";
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  readonly events: SseEvent[] = [];
  comments = 0;

  constructor(response: Response) {
    this.reader = response.body!.getReader();
  }

  async next(timeoutMs = 5_000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parseOne();
      if (parsed) return parsed;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE event within ${timeoutMs} ms; got ${this.events.map((e) => e.event).join(",")}`);
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), left)),
      ]);
      if (chunk === "timeout") continue;
      if (chunk.done) return undefined;
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Reads until an event of `type` arrives; returns every event read on the way, that one included. */
  async until(type: string, timeoutMs = 10_000): Promise<SseEvent[]> {
    const seen: SseEvent[] = [];
    for (;;) {
      const event = await this.next(timeoutMs);
      if (!event) throw new Error(`stream ended before ${type}; got ${seen.map((e) => e.event).join(",")}`);
      seen.push(event);
      if (event.event === type) return seen;
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  private parseOne(): SseEvent | undefined {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end < 0) return undefined;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event: Partial<SseEvent> = {};
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) this.comments++;
        else if (line.startsWith("id: ")) event.id = line.slice(4);
        else if (line.startsWith("event: ")) event.event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length === 0) continue;
      const full = { ...event, data: data.join("\n"), json: JSON.parse(data.join("\n")) } as SseEvent;
      this.events.push(full);
      return full;
    }
  }
}

export async function openEvents(session: TestSession, lastEventId?: number | string): Promise<SseReader> {
  const query = lastEventId === undefined ? "" : `?lastEventId=${lastEventId}`;
  const res = await api(`/v1/sessions/${session.id}/events${query}`, { key: session.key });
  if (res.status !== 200) throw new Error(`events failed: ${res.status} ${await res.text()}`);
  return new SseReader(res);
}
