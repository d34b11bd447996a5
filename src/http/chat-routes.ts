/**
 * useChat's endpoint (AI SDK UI message stream protocol v1): `POST /v1/sessions/:id/chat` takes the
 * chat's UI messages (only the last one is read), enqueues it or answers the approvals it carries, and
 * streams that run's events as UI message chunks. Mounted by app.ts.
 */
import { Hono } from "hono";
import { readChatRequest } from "../chat/chat-request.ts";
import { UI_MESSAGE_STREAM_HEADERS, uiMessageStream } from "../chat/chat-stream.ts";
import { ApiError } from "./errors.ts";
import { settle } from "./failure-status.ts";
import type { HonoEnv } from "./hono-env.ts";
import { limitRate } from "./rate-limit.ts";
import { chatBody } from "./schemas.ts";
import { sessionKey, sessionStub } from "./session-stub.ts";
import { jsonBody, sessionParam } from "./validation.ts";

export const chatRoutes = new Hono<HonoEnv>();

chatRoutes.post("/v1/sessions/:id/chat", sessionParam, limitRate("MESSAGE_RATE_LIMIT", "send a message"), jsonBody(chatBody), async (c) => {
  const stub = sessionStub(c.env, c.req.valid("param").id);
  const key = sessionKey(c);
  const request = readChatRequest(c.req.valid("json").messages);
  if (request.kind === "invalid") throw new ApiError(400, "bad_request", `Invalid chat request: ${request.message}`);
  const afterSeq = (settle(await stub.snapshot(key)) as { lastEventSeq: number }).lastEventSeq;
  let messageId: string = crypto.randomUUID();
  if (request.kind === "message") messageId = settle(await stub.enqueue(key, "input", request.content)).messageId;
  else for (const a of request.answers) settle(await stub.decideApproval(key, a.toolCallId, a.approve, a.reason));
  const events = settle(await stub.openEvents(key, afterSeq));
  const view = request.kind === "message" ? { awaiting: request.content } : { knownToolCallIds: request.knownToolCallIds };
  return new Response(uiMessageStream({ events, messageId, ...view }), { headers: UI_MESSAGE_STREAM_HEADERS });
});
