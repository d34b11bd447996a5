/**
 * useChat's endpoint (AI SDK UI message stream protocol v1): `POST /v1/sessions/:id/chat` takes the
 * chat's UI messages (only the last one is read), enqueues it or answers the approvals it carries, and
 * streams that run's events as UI message chunks. A repeat under the same Idempotency-Key enqueues
 * nothing and answers the stream of the first request's run, read again from the event log. Mounted by app.ts.
 */
import { Hono } from "hono";
import type { UserContent } from "../core/index.ts";
import { readChatRequest } from "../chat/chat-request.ts";
import { UI_MESSAGE_STREAM_HEADERS, uiMessageStream } from "../chat/chat-stream.ts";
import { ApiError } from "./errors.ts";
import { settle } from "./failure-status.ts";
import type { HonoEnv } from "./hono-env.ts";
import { idempotent, keepAnswer, replayOf } from "./idempotency.ts";
import { limitRate } from "./rate-limit.ts";
import { chatBody } from "./schemas.ts";
import { sessionKey, sessionStub } from "./session-stub.ts";
import { jsonBody, sessionParam } from "./validation.ts";

export const chatRoutes = new Hono<HonoEnv>();

/** What a repeat of a /chat request needs to answer the same stream. */
type ChatAnswer = { afterSeq: number; messageId: string; view: { awaiting: UserContent[] } | { knownToolCallIds: string[] } };

chatRoutes.post("/v1/sessions/:id/chat", sessionParam, limitRate("MESSAGE_RATE_LIMIT", "send a message"), jsonBody(chatBody), idempotent, async (c) => {
  const stub = sessionStub(c.env, c.req.valid("param").id);
  const key = sessionKey(c);
  const request = readChatRequest(c.req.valid("json").messages);
  if (request.kind === "invalid") throw new ApiError(400, "bad_request", `Invalid chat request: ${request.message}`);
  let answer = replayOf<ChatAnswer>(c);
  if (!answer) {
    const afterSeq = (settle(await stub.snapshot(key)) as { lastEventSeq: number }).lastEventSeq;
    let messageId: string = crypto.randomUUID();
    if (request.kind === "message") messageId = settle(await stub.enqueue(key, "input", request.content)).messageId;
    else for (const a of request.answers) settle(await stub.decideApproval(key, a.toolCallId, a.approve, a.reason));
    answer = { afterSeq, messageId, view: request.kind === "message" ? { awaiting: request.content } : { knownToolCallIds: request.knownToolCallIds } };
    keepAnswer(c, answer);
  }
  const events = settle(await stub.openEvents(key, answer.afterSeq));
  return new Response(uiMessageStream({ events, messageId: answer.messageId, ...answer.view }), { headers: UI_MESSAGE_STREAM_HEADERS });
});
