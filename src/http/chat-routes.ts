/**
 * useChat's endpoint (AI SDK UI message stream protocol v1): `POST /v1/sessions/:id/chat` takes the
 * chat's UI messages (only the last one is read), enqueues it or answers the approvals it carries, and
 * streams that run's events as UI message chunks. A repeat under the same Idempotency-Key enqueues
 * nothing and answers the stream of the first request's run, read again from the event log.
 * `GET …/chat/:chatId/stream` is useChat's resume (DefaultChatTransport.reconnectToStream): the active
 * run's stream from its first event, then live; 204 when no run is active. Mounted by app.ts.
 */
import { type Context, Hono } from "hono";
import { validator } from "hono/validator";
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
import { checkSessionId, jsonBody, sessionParam } from "./validation.ts";

export const chatRoutes = new Hono<HonoEnv>();

/** What a repeat of a /chat request needs to answer the same stream. */
type ChatAnswer = { afterSeq: number; messageId: string; view: { awaiting: UserContent[] } | { knownToolCallIds: string[] } };

chatRoutes.post(
  "/v1/sessions/:id/chat",
  sessionParam,
  limitRate("MESSAGE_RATE_LIMIT", "send a message"),
  jsonBody(chatBody),
  idempotent,
  async (c) => {
    const stub = sessionStub(c.env, c.req.valid("param").id);
    const key = sessionKey(c);
    const request = readChatRequest(c.req.valid("json").messages);
    if (request.kind === "invalid") throw new ApiError(400, "bad_request", `Invalid chat request: ${request.message}`);
    let answer = replayOf<ChatAnswer>(c);
    if (!answer) {
      const afterSeq = settle(await stub.lastEventSeq(key)).lastEventSeq;
      let messageId: string = crypto.randomUUID();
      if (request.kind === "message") messageId = settle(await stub.enqueue(key, "input", request.content)).messageId;
      else for (const a of request.answers) settle(await stub.decideApproval(key, a.toolCallId, a.approve, a.reason));
      answer = {
        afterSeq,
        messageId,
        view: request.kind === "message" ? { awaiting: request.content } : { knownToolCallIds: request.knownToolCallIds },
      };
      keepAnswer(c, answer);
    }
    const events = settle(await stub.openEvents(key, answer.afterSeq));
    return new Response(uiMessageStream({ events, messageId: answer.messageId, ...answer.view }), { headers: UI_MESSAGE_STREAM_HEADERS });
  },
);

/** `:id` and useChat's `:chatId` (any id the app chose; it names no state here, the session is the chat). */
const resumeParams = validator("param", async (params: Record<string, string>, c: Context<HonoEnv>) => {
  if (!/^[\x21-\x7e]{1,200}$/.test(params.chatId ?? "")) throw new ApiError(400, "bad_request", "Invalid chat id");
  return { id: await checkSessionId(c.env, params.id) };
});

chatRoutes.get("/v1/sessions/:id/chat/:chatId/stream", resumeParams, async (c) => {
  const stub = sessionStub(c.env, c.req.valid("param").id);
  const key = sessionKey(c);
  const run = settle(await stub.activeRun(key));
  if (!run) return c.body(null, 204);
  const events = settle(await stub.openEvents(key, run.afterSeq));
  // A new assistant message (the page reloaded, or reconnects): named by the run, the same on each resume.
  return new Response(uiMessageStream({ events, messageId: run.runId }), { headers: UI_MESSAGE_STREAM_HEADERS });
});
