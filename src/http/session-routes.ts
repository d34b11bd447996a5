/**
 * The session routes of the HTTP API (docs/api.md "HTTP API (v1)"): create, snapshot, messages and follow-ups,
 * responses, events, continue, abort, approvals, settings, schedules, shutdown. Each validates its params, query
 * and body with the validation middleware, then calls the session's Durable Object over RPC and settles
 * its result (failure-status.ts). Mounted by app.ts.
 */
import { type Context, Hono } from "hono";
import { lazySchema } from "../lazy-schema.ts";
import { validator } from "hono/validator";
import * as z from "zod";
import type { UserContent } from "../core/index.ts";
import { agentConfig } from "../agent-config.ts";
import { readSetting } from "../config.ts";
import { secretMatches, sha256Hex } from "../credentials.ts";
import { checkSessionModel } from "../llm/select-model.ts";
import { readMcpServers, selectMcpServers } from "../mcp/client/servers-config.ts";
import { isApprovalName } from "../session/human/approval-names.ts";
import { bundledToolNames } from "../tools/catalog.ts";
import { checkSessionCreation } from "./access-policy.ts";
import { newSessionKey, readBearer } from "./auth.ts";
import { ApiError } from "./errors.ts";
import { bridgeEvents } from "./event-bridge.ts";
import { parseLastEventId } from "./events-route.ts";
import { settle } from "./failure-status.ts";
import type { HonoEnv } from "./hono-env.ts";
import { idempotencyOf, idempotent, readIdempotencyKey, replayKept } from "./idempotency.ts";
import { idempotentCreation, repeatedCreationKey } from "./idempotent-creation.ts";
import { requireApiToken } from "./operator-access.ts";
import { limitRate } from "./rate-limit.ts";
import {
  addMcpServerBody,
  approvalBody,
  createSessionBody,
  elicitationAnswerBody,
  messageBody,
  messagePageQuery,
  settingsBody,
  tokenBudgetBody,
  waitQuery,
} from "./schemas.ts";
import { eventsKey, sessionKey, sessionStub } from "./session-stub.ts";
import {
  checkSessionId,
  elicitationParams,
  jsonBody,
  mcpServerParams,
  noBody,
  queryOf,
  sessionParam,
  toolCallParams,
} from "./validation.ts";
import { scheduleRequest } from "../schedules/schedule-request.ts";
import { issueSessionId, type SessionId } from "../signing/session-ids.ts";

export const sessionRoutes = new Hono<HonoEnv>();

const toBlocks = (content: z.infer<ReturnType<typeof messageBody>>["content"]): UserContent[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : content;

sessionRoutes.post(
  "/v1/sessions",
  async (c, next) => {
    await checkSessionCreation(c.req.raw, c.env, c.get("user") !== undefined);
    await next();
  },
  limitRate("SESSION_RATE_LIMIT", "create a session"),
  jsonBody(createSessionBody, { optional: true }),
  async (c) => {
    const body = c.req.valid("json");
    const mcp = readMcpServers(c.env);
    if (!mcp.ok) throw new ApiError(500, "misconfigured", mcp.message);
    const chosen = selectMcpServers(mcp.servers, body.mcpServers);
    if (!chosen.ok)
      throw new ApiError(
        400,
        "bad_request",
        `Unknown MCP server(s): ${chosen.unknown.join(", ")} (configured: ${mcp.servers.map((s) => s.name).join(", ") || "none"})`,
      );
    const bundled = new Set(bundledToolNames());
    const chosenNames = chosen.servers.map((s) => s.name);
    const unknown = [
      ...(body.tools ?? []).filter((n) => !bundled.has(n)),
      ...(body.requireApproval ?? []).filter((n) => !isApprovalName(n, bundled, chosenNames)),
    ];
    if (unknown.length > 0) throw new ApiError(400, "bad_request", `Unknown tool(s): ${[...new Set(unknown)].join(", ")}`);
    const model = checkSessionModel(c.env, body.model);
    if (!model.ok) throw new ApiError(400, "bad_request", `Invalid body: ${model.message}`);
    const userId = await sessionOwner(c, body.userId);
    const idempotencyKey = readIdempotencyKey(c.req.raw);
    const fresh = newSessionKey();
    const { id, creation } =
      idempotencyKey === undefined
        ? { id: await issueSessionId(c.env), creation: undefined }
        : await idempotentCreation(c, idempotencyKey, fresh);
    const created = settle(
      await sessionStub(c.env, id).init(
        {
          id,
          keyHash: await sha256Hex(fresh),
          createdAt: Date.now(),
          systemPrompt: body.systemPrompt ?? agentConfig.systemPrompt,
          toolExecution: body.toolExecution ?? agentConfig.toolExecution,
          tools: body.tools,
          requireApproval: body.requireApproval ?? [],
          mcpServers: chosenNames,
          ...(body.model === undefined ? {} : { model: model.model }),
          ...(userId === undefined ? {} : { userId }),
          // Where MCP OAuth redirects return: the origin this Worker was reached at (Cloudflare routes by it).
          origin: new URL(c.req.url).origin,
        },
        creation,
      ),
    );
    // A repeat under the same Idempotency-Key: the key the first request was given, unsealed.
    const key = idempotencyKey === undefined ? fresh : await repeatedCreationKey(c.env, id, idempotencyKey, created, fresh);
    return c.json({ id, key }, 201);
  },
);

/** Whose session is created: the signed-in user's own, or the `userId` the operator names (API_TOKEN only). */
async function sessionOwner(c: Context<HonoEnv>, named: string | undefined): Promise<string | undefined> {
  const user = c.get("user");
  if (user) {
    if (named !== undefined && named !== user.id) throw new ApiError(403, "forbidden", "A user's token creates that user's sessions only");
    return user.id;
  }
  if (named === undefined) return undefined;
  const token = readSetting(c.env, "API_TOKEN");
  if (!token || !(await secretMatches(readBearer(c.req.raw), token)))
    throw new ApiError(403, "forbidden", "Only the operator (API_TOKEN) may create a session for a userId");
  return named;
}

sessionRoutes.get("/v1/sessions/:id", sessionParam, async (c) =>
  c.json(settle(await sessionStub(c.env, c.req.valid("param").id).snapshot(sessionKey(c)))),
);

sessionRoutes.post(
  "/v1/sessions/:id/messages",
  sessionParam,
  limitRate("MESSAGE_RATE_LIMIT", "send a message"),
  jsonBody(messageBody),
  (c) => enqueueMessage(c, c.req.valid("param").id, "input", toBlocks(c.req.valid("json").content)),
);

/**
 * POST …/messages and …/follow-ups: the session claims the Idempotency-Key (if any), queues the message and
 * keeps the answer in one call (docs/api.md "Idempotency-Key"), so a message costs one request to it and one row for its key.
 */
async function enqueueMessage(c: Context<HonoEnv>, id: SessionId, kind: "input" | "followUp", content: UserContent[]): Promise<Response> {
  const queued = settle(await sessionStub(c.env, id).enqueueOnce(sessionKey(c), kind, content, await idempotencyOf(c)));
  return "replay" in queued ? replayKept(c, queued.replay) : c.json(queued, 202);
}

sessionRoutes.get("/v1/sessions/:id/messages", sessionParam, queryOf(messagePageQuery), async (c) => {
  const { before, limit } = c.req.valid("query");
  return c.json(settle(await sessionStub(c.env, c.req.valid("param").id).messagePage(sessionKey(c), before, limit)));
});

sessionRoutes.post(
  "/v1/sessions/:id/follow-ups",
  sessionParam,
  limitRate("MESSAGE_RATE_LIMIT", "send a message"),
  jsonBody(messageBody),
  (c) => enqueueMessage(c, c.req.valid("param").id, "followUp", toBlocks(c.req.valid("json").content)),
);

sessionRoutes.get("/v1/sessions/:id/responses/next", sessionParam, queryOf(waitQuery), async (c) => {
  const stub = sessionStub(c.env, c.req.valid("param").id);
  const { message } = settle(await stub.takeResponse(sessionKey(c), c.req.valid("query").waitMs ?? 0));
  return message ? c.json(message) : c.body(null, 204);
});

sessionRoutes.get("/v1/sessions/:id/events", sessionParam, async (c) => {
  const afterSeq = parseLastEventId(c.req.raw);
  return bridgeEvents(sessionStub(c.env, c.req.valid("param").id), eventsKey(c), afterSeq);
});

sessionRoutes.post("/v1/sessions/:id/continue", sessionParam, limitRate("MESSAGE_RATE_LIMIT", "send a message"), noBody, async (c) =>
  c.json(settle(await sessionStub(c.env, c.req.valid("param").id).continueRun(sessionKey(c))), 202),
);

sessionRoutes.post("/v1/sessions/:id/abort", sessionParam, noBody, async (c) =>
  c.json(settle(await sessionStub(c.env, c.req.valid("param").id).abort(sessionKey(c))), 202),
);

sessionRoutes.post("/v1/sessions/:id/tool-calls/:toolCallId/approval", toolCallParams, jsonBody(approvalBody), async (c) => {
  const { id, toolCallId } = c.req.valid("param");
  const body = c.req.valid("json");
  return c.json(settle(await sessionStub(c.env, id).decideApproval(sessionKey(c), toolCallId, body.approve, body.reason)));
});

sessionRoutes.post("/v1/sessions/:id/elicitations/:elicitationId", elicitationParams, jsonBody(elicitationAnswerBody), async (c) => {
  const { id, elicitationId } = c.req.valid("param");
  const { action, content } = c.req.valid("json");
  return c.json(settle(await sessionStub(c.env, id).answerElicitation(sessionKey(c), elicitationId, action, content)));
});

sessionRoutes.patch("/v1/sessions/:id", sessionParam, jsonBody(settingsBody), async (c) =>
  c.json(settle(await sessionStub(c.env, c.req.valid("param").id).updateSettings(sessionKey(c), c.req.valid("json")))),
);

// The operator (API_TOKEN), not the session's holder, sets what one session may spend.
sessionRoutes.put("/v1/sessions/:id/token-budget", sessionParam, jsonBody(tokenBudgetBody), async (c) => {
  await requireApiToken(c);
  return c.json(settle(await sessionStub(c.env, c.req.valid("param").id).setTokenBudget(c.req.valid("json").tokenBudget)));
});

sessionRoutes.delete("/v1/sessions/:id", sessionParam, noBody, async (c) =>
  c.json(settle(await sessionStub(c.env, c.req.valid("param").id).shutdown(sessionKey(c)))),
);

// Each add connects to the server: limited like messages, so add/remove loops cannot hammer a server.
sessionRoutes.post(
  "/v1/sessions/:id/mcp-servers",
  sessionParam,
  limitRate("MESSAGE_RATE_LIMIT", "add an MCP server"),
  jsonBody(addMcpServerBody),
  async (c) => c.json(settle(await sessionStub(c.env, c.req.valid("param").id).addMcpServer(sessionKey(c), c.req.valid("json"))), 201),
);

sessionRoutes.delete("/v1/sessions/:id/mcp-servers/:name", mcpServerParams, noBody, async (c) => {
  const { id, name } = c.req.valid("param");
  return c.json(settle(await sessionStub(c.env, id).removeMcpServer(sessionKey(c), name)));
});

/** `:scheduleId` is a UUID the session issued; any other text names no schedule (404, no object addressed twice). */
const scheduleIdShape = lazySchema(() => z.uuid());
const scheduleParams = validator("param", async (params: Record<string, string>, c: Context<HonoEnv>) => {
  const id = await checkSessionId(c.env, params.id);
  if (!scheduleIdShape().safeParse(params.scheduleId).success) throw new ApiError(404, "not_found", "Schedule not found");
  return { id, scheduleId: params.scheduleId! };
});

sessionRoutes.post("/v1/sessions/:id/schedules", sessionParam, jsonBody(scheduleRequest), idempotent, async (c) =>
  c.json(settle(await sessionStub(c.env, c.req.valid("param").id).createSchedule(sessionKey(c), c.req.valid("json"))), 201),
);

sessionRoutes.get("/v1/sessions/:id/schedules", sessionParam, async (c) =>
  c.json(settle(await sessionStub(c.env, c.req.valid("param").id).listSchedules(sessionKey(c)))),
);

sessionRoutes.delete("/v1/sessions/:id/schedules/:scheduleId", scheduleParams, noBody, async (c) => {
  const { id, scheduleId } = c.req.valid("param");
  return c.json(settle(await sessionStub(c.env, id).cancelSchedule(sessionKey(c), scheduleId)));
});
