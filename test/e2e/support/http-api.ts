/**
 * The v1 API as an e2e test drives it from Node against a wrangler dev URL: sessions, messages, responses
 * and snapshots through the client SDK (which throws ApiClientError on any refusal), raw `call` for what
 * the SDK cannot express, and the event stream read byte by byte for wire-level checks.
 * Used by test/e2e/*.test.ts.
 */
import { createClient, type AssistantMessage, type SessionSnapshot } from "../../../src/client/index.ts";
import { apiRequestInit, type ApiInit } from "../../support/http.ts";
import { SseReader } from "../../support/sse-reader.ts";

export type E2eSession = { id: string; key: string };

/** What the session answers (the SDK's AssistantMessage). */
export type AssistantResponse = AssistantMessage;

export function createApi(baseUrl: string) {
  const client = createClient({ baseUrl });
  const call = (path: string, init: ApiInit = {}) => fetch(`${baseUrl}${path}`, apiRequestInit(init));
  const handle = (session: E2eSession) => client.session(session.id, session.key);

  return {
    call,

    async createSession(options: Record<string, unknown> = {}): Promise<E2eSession> {
      const { id, key } = await client.createSession(options);
      return { id, key };
    },

    send(session: E2eSession, content: string): Promise<{ messageId: string }> {
      return handle(session).send(content);
    },

    async openEvents(session: E2eSession): Promise<SseReader> {
      const res = await call(`/v1/sessions/${session.id}/events`, { key: session.key });
      if (res.status !== 200) throw new Error(`open events: expected 200, got ${res.status} ${await res.text()}`);
      return new SseReader(res);
    },

    async nextResponse(session: E2eSession, waitMs = 5_000): Promise<AssistantResponse> {
      const message = await handle(session).takeResponse(waitMs);
      if (!message) throw new Error(`next response: none within ${waitMs} ms`);
      return message;
    },

    async snapshot(session: E2eSession): Promise<SessionSnapshot> {
      return handle(session).snapshot();
    },
  };
}

export type E2eApi = ReturnType<typeof createApi>;

export { textOf } from "../../support/text.ts";
