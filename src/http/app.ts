/**
 * The Worker's HTTP API (README "HTTP API (v1)"): Hono routes that validate everything with zod, check API_TOKEN
 * where required, and call the session's Durable Object over RPC. One error handler turns every failure
 * into `{error:{code,message}}` with its status; unexpected faults are 500s with no internals leaked.
 */
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import type { z } from "zod";
import type { UserContent } from "../core/index.ts";
import type { AppEnv } from "../env.ts";
import { agentConfig } from "../agent-config.ts";
import { readChatRequest } from "../chat/chat-request.ts";
import { UI_MESSAGE_STREAM_HEADERS, uiMessageStream } from "../chat/chat-stream.ts";
import { handleMcpRequest } from "../mcp/mcp-server.ts";
import { parseMcpServers, selectMcpServers } from "../mcp/servers-config.ts";
import type { AgentSession } from "../session/agent-session.ts";
import { isApprovalName } from "../session/approval-names.ts";
import { checkSessionModel } from "../llm/select-model.ts";
import { bundledToolNames } from "../tools/catalog.ts";
import { sha256Hex } from "../credentials.ts";
import { checkApiToken, checkSessionCreation, isLocalRequest } from "./access-policy.ts";
import { newSessionId, newSessionKey, readPresentedKey } from "./auth.ts";
import { allowedOrigin } from "./cors-policy.ts";
import { ApiError, errorResponse } from "./errors.ts";
import { bridgeEvents } from "./event-bridge.ts";
import { parseLastEventId } from "./events-route.ts";
import { settle } from "./failure-status.ts";
import { enforceRateLimit } from "./rate-limit.ts";
import { mountToolRoutes } from "./tool-routes.ts";
import {
  approvalBody,
  chatBody,
  createSessionBody,
  describeZodError,
  MAX_BODY_BYTES,
  messageBody,
  messagePageQuery,
  sessionIdParam,
  settingsBody,
  toolCallIdParam,
  waitQuery,
} from "./schemas.ts";

type HonoEnv = { Bindings: AppEnv };

export const app = new Hono<HonoEnv>();

app.use("/v1/*", async (c, next) => {
  return cors({
    origin: (origin) => allowedOrigin(origin, c.req.url, c.env.CORS_ORIGINS),
    allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID"],
    allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
    exposeHeaders: ["Retry-After"],
    maxAge: 600,
  })(c, next);
});

// MCP clients in a browser (e.g. the MCP Inspector) send and read the transport's own headers.
app.use("/mcp", async (c, next) => {
  const origins = c.env.CORS_ORIGINS?.split(",").map((s) => s.trim()).filter(Boolean);
  return cors({
    origin: origins && origins.length > 0 ? origins : "*",
    allowHeaders: ["Authorization", "Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID"],
    allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
    exposeHeaders: ["Mcp-Session-Id", "Mcp-Protocol-Version"],
    maxAge: 600,
  })(c, next);
});

app.use(
  "/mcp",
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, "payload_too_large", `Request body exceeds ${MAX_BODY_BYTES} bytes`);
    },
  }),
);

app.use(
  "/v1/*",
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, "payload_too_large", `Request body exceeds ${MAX_BODY_BYTES} bytes`);
    },
  }),
);

app.onError((err, c) => {
  if (err instanceof ApiError) return errorResponse(err);
  console.error("unhandled error", c.req.method, c.req.path, err);
  return errorResponse(new ApiError(500, "internal", "Internal error"));
});
app.notFound((c) => errorResponse(new ApiError(404, "not_found", `No route for ${c.req.method} ${c.req.path}`)));

/** Operator routes: the API token when one is set; without one, only on localhost (README "Access and limits"). */
async function requireApiToken(c: Context<HonoEnv>): Promise<void> {
  const token = c.env.API_TOKEN?.trim();
  if (token) return checkApiToken(c.req.raw, token);
  if (!isLocalRequest(c.req.url)) {
    throw new ApiError(403, "forbidden", "Operator routes of a deployed Worker need API_TOKEN: set it with `wrangler secret put API_TOKEN`");
  }
}

async function readJson<S extends z.ZodType>(c: Context<HonoEnv>, schema: S, optional = false): Promise<z.infer<S>> {
  const text = await c.req.text();
  if (text.trim() === "" && optional) return schema.parse({});
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ApiError(415, "unsupported_media_type", "Content-Type must be application/json");
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, "bad_request", "Body is not valid JSON");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ApiError(400, "bad_request", `Invalid body: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

function param<S extends z.ZodType>(schema: S, value: string | undefined, name: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    // An id that cannot exist names no session: answer as for an unknown one.
    if (name === "session id") throw new ApiError(404, "not_found", "Session not found");
    throw new ApiError(400, "bad_request", `Invalid ${name}: ${describeZodError(parsed.error)}`);
  }
  return parsed.data;
}

function session(c: Context<HonoEnv>): DurableObjectStub<AgentSession> {
  const id = param(sessionIdParam, c.req.param("id"), "session id");
  const ns = c.env.AGENT_SESSION;
  return ns.get(ns.idFromName(id));
}

const key = (c: Context<HonoEnv>) => readPresentedKey(c.req.raw);

app.post("/v1/sessions", async (c) => {
  await checkSessionCreation(c.req.raw, c.env);
  await enforceRateLimit(c.req.raw, c.env.SESSION_RATE_LIMIT, "create a session");
  const body = await readJson(c, createSessionBody, true);
  const mcp = parseMcpServers(c.env.MCP_SERVERS);
  if (!mcp.ok) throw new ApiError(500, "misconfigured", mcp.message);
  const chosen = selectMcpServers(mcp.servers, body.mcpServers);
  if (!chosen.ok) throw new ApiError(400, "bad_request", `Unknown MCP server(s): ${chosen.unknown.join(", ")} (configured: ${mcp.servers.map((s) => s.name).join(", ") || "none"})`);
  const bundled = new Set(bundledToolNames());
  const chosenNames = chosen.servers.map((s) => s.name);
  const unknown = [
    ...(body.tools ?? []).filter((n) => !bundled.has(n)),
    ...(body.requireApproval ?? []).filter((n) => !isApprovalName(n, bundled, chosenNames)),
  ];
  if (unknown.length > 0) throw new ApiError(400, "bad_request", `Unknown tool(s): ${[...new Set(unknown)].join(", ")}`);
  const model = checkSessionModel(c.env, body.model);
  if (!model.ok) throw new ApiError(400, "bad_request", `Invalid body: ${model.message}`);
  const id = newSessionId();
  const sessionKey = newSessionKey();
  const ns = c.env.AGENT_SESSION;
  settle(
    await ns.get(ns.idFromName(id)).init({
      id,
      keyHash: await sha256Hex(sessionKey),
      createdAt: Date.now(),
      systemPrompt: body.systemPrompt ?? agentConfig.systemPrompt,
      toolExecution: body.toolExecution ?? agentConfig.toolExecution,
      tools: body.tools,
      requireApproval: body.requireApproval ?? [],
      mcpServers: chosenNames,
      ...(body.model === undefined ? {} : { model: model.model }),
    }),
  );
  return c.json({ id, key: sessionKey }, 201);
});

app.get("/v1/sessions/:id", async (c) => c.json(settle(await session(c).snapshot(key(c)))));

const toBlocks = (content: z.infer<typeof messageBody>["content"]): UserContent[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : content;

app.post("/v1/sessions/:id/messages", async (c) => {
  const stub = session(c);
  await enforceRateLimit(c.req.raw, c.env.MESSAGE_RATE_LIMIT, "send a message");
  const body = await readJson(c, messageBody);
  return c.json(settle(await stub.enqueue(key(c), "input", toBlocks(body.content))), 202);
});

app.get("/v1/sessions/:id/messages", async (c) => {
  const stub = session(c);
  const query = messagePageQuery.safeParse(c.req.query());
  if (!query.success) throw new ApiError(400, "bad_request", `Invalid query: ${describeZodError(query.error)}`);
  return c.json(settle(await stub.messagePage(key(c), query.data.before, query.data.limit)));
});

app.post("/v1/sessions/:id/follow-ups", async (c) => {
  const stub = session(c);
  await enforceRateLimit(c.req.raw, c.env.MESSAGE_RATE_LIMIT, "send a message");
  const body = await readJson(c, messageBody);
  return c.json(settle(await stub.enqueue(key(c), "followUp", toBlocks(body.content))), 202);
});

app.get("/v1/sessions/:id/responses/next", async (c) => {
  const stub = session(c);
  const query = waitQuery.safeParse(c.req.query());
  if (!query.success) throw new ApiError(400, "bad_request", `Invalid query: ${describeZodError(query.error)}`);
  const { message } = settle(await stub.takeResponse(key(c), query.data.waitMs ?? 0));
  return message ? c.json(message) : c.body(null, 204);
});

app.get("/v1/sessions/:id/events", async (c) => {
  const stub = session(c);
  const afterSeq = parseLastEventId(c.req.raw);
  return bridgeEvents(stub, key(c), afterSeq);
});

app.post("/v1/sessions/:id/continue", async (c) => c.json(settle(await session(c).continueRun(key(c))), 202));

app.post("/v1/sessions/:id/abort", async (c) => c.json(settle(await session(c).abort(key(c))), 202));

app.post("/v1/sessions/:id/tool-calls/:toolCallId/approval", async (c) => {
  const stub = session(c);
  const toolCallId = param(toolCallIdParam, c.req.param("toolCallId"), "tool call id");
  const body = await readJson(c, approvalBody);
  return c.json(settle(await stub.decideApproval(key(c), toolCallId, body.approve, body.reason)));
});

app.patch("/v1/sessions/:id", async (c) => {
  const stub = session(c);
  const body = await readJson(c, settingsBody);
  return c.json(settle(await stub.updateSettings(key(c), body)));
});

/** useChat's endpoint (AI SDK UI message stream v1): the last UI message in, that run's events out. */
app.post("/v1/sessions/:id/chat", async (c) => {
  const stub = session(c);
  const body = await readJson(c, chatBody);
  const request = readChatRequest(body.messages);
  if (request.kind === "invalid") throw new ApiError(400, "bad_request", `Invalid chat request: ${request.message}`);
  const afterSeq = (settle(await stub.snapshot(key(c))) as { lastEventSeq: number }).lastEventSeq;
  let messageId: string = crypto.randomUUID();
  if (request.kind === "message") messageId = settle(await stub.enqueue(key(c), "input", request.content)).messageId;
  else for (const a of request.answers) settle(await stub.decideApproval(key(c), a.toolCallId, a.approve, a.reason));
  const events = settle(await stub.openEvents(key(c), afterSeq));
  const view = request.kind === "message" ? { awaiting: request.content } : { knownToolCallIds: request.knownToolCallIds };
  return new Response(uiMessageStream({ events, messageId, ...view }), { headers: UI_MESSAGE_STREAM_HEADERS });
});

app.delete("/v1/sessions/:id", async (c) => c.json(settle(await session(c).shutdown(key(c)))));

mountToolRoutes(app, requireApiToken);

/** The Worker's tools as an MCP server (Streamable HTTP); API_TOKEN as the bearer when it is set. */
app.all("/mcp", async (c) => {
  await requireApiToken(c);
  return handleMcpRequest(c.req.raw, c.env);
});
