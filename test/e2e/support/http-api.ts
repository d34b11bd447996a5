/**
 * The v1 HTTP API as an e2e test drives it from Node: real fetch against a wrangler dev URL (create a
 * session, post messages, open the event stream, take responses, read the snapshot). Used by
 * test/e2e/*.test.ts; every call checks its status and throws with the body when it is not the expected one.
 */
import { SseReader } from "../../support/sse-reader.ts";

export type E2eSession = { id: string; key: string };

export type AssistantResponse = {
  role: "assistant";
  content: { type: string; text?: string }[];
  stopReason?: string;
  [key: string]: unknown;
};

export type SessionSnapshot = { status: string; messages: { role: string; content: unknown }[]; [key: string]: unknown };

async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${await res.text()}`);
  return res;
}

export function createApi(baseUrl: string) {
  const call = (path: string, init: RequestInit & { key?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (init.key) headers.set("authorization", `Bearer ${init.key}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    return fetch(`${baseUrl}${path}`, { ...init, headers, body });
  };

  return {
    call,

    async createSession(options: Record<string, unknown> = {}): Promise<E2eSession> {
      const res = await expectStatus(await call("/v1/sessions", { method: "POST", json: options }), 201, "create session");
      return (await res.json()) as E2eSession;
    },

    async send(session: E2eSession, content: string): Promise<{ messageId: string }> {
      const res = await call(`/v1/sessions/${session.id}/messages`, { method: "POST", key: session.key, json: { content } });
      return (await (await expectStatus(res, 202, "post message")).json()) as { messageId: string };
    },

    async openEvents(session: E2eSession): Promise<SseReader> {
      const res = await expectStatus(await call(`/v1/sessions/${session.id}/events`, { key: session.key }), 200, "open events");
      return new SseReader(res);
    },

    async nextResponse(session: E2eSession, waitMs = 5_000): Promise<AssistantResponse> {
      const res = await call(`/v1/sessions/${session.id}/responses/next?waitMs=${waitMs}`, { key: session.key });
      return (await (await expectStatus(res, 200, "next response")).json()) as AssistantResponse;
    },

    async snapshot(session: E2eSession): Promise<SessionSnapshot> {
      const res = await expectStatus(await call(`/v1/sessions/${session.id}`, { key: session.key }), 200, "snapshot");
      return (await res.json()) as SessionSnapshot;
    },
  };
}

export type E2eApi = ReturnType<typeof createApi>;

/** The text of an assistant message's text blocks, joined. */
export function textOf(message: { content: { type: string; text?: string }[] }): string {
  return message.content.flatMap((block) => (block.type === "text" && block.text !== undefined ? [block.text] : [])).join("");
}
