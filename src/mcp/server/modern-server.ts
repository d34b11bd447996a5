/**
 * /mcp for clients of revision 2026-07-28: stateless, one JSON-RPC request per HTTP request, no
 * initialize. Every request carries what the server needs in its `_meta` (protocol version, client
 * capabilities, optionally client info and log level) and the same version in the MCP-Protocol-Version
 * header. `server/discover` tells the versions and capabilities; `tools/list` is cacheable (ttlMs,
 * cacheScope); `tools/call` runs the tool through the core pipeline (served-tool-call.ts). A tool that
 * asks the client's user or model (elicitation, sampling, or an approval asked by elicitation) gets its
 * answer by a Multi Round-Trip Request: the call ends with an `input_required` result naming the
 * questions and a sealed `requestState`; the client retries the call with the answers and that state, and
 * the tool runs again from the start, its earlier questions answered from the state and the new one from
 * the retry. A tool asks before it acts, so a re-run repeats no side effect: an approval is asked before
 * the tool runs at all, and a tool's own `context.elicit` must come before what it changes.
 * Progress and log messages (only at or above the request's `_meta` log level) stream as SSE before the
 * result. Nothing is kept between requests.
 */
import type { AgentTool, ToolStore } from "../../core/index.ts";
import { contextFor, type ToolHost } from "../../tools/tool-context.ts";
import { toCallToolResult } from "../mcp-content.ts";
import {
  TOOL_LOG_LEVELS,
  type ToolElicitation,
  type ToolElicitationAnswer,
  type ToolLogLevel,
  type ToolSampling,
  type ToolRoot,
  type ToolSamplingAnswer,
} from "../mcp-vocabulary.ts";
import { progressOf } from "./progress.ts";
import { runServedToolCall } from "./served-tool-call.ts";
import { seal, unseal } from "../signing.ts";

export const MODERN_PROTOCOL_VERSION = "2026-07-28";
/** The versions /mcp serves: this revision statelessly, the older ones through the handshake (mcp-sessions.ts). */
export const SUPPORTED_PROTOCOL_VERSIONS = [MODERN_PROTOCOL_VERSION, "2025-11-25", "2025-06-18", "2025-03-26"];
/** The revisions of the handshake era, whose requests go to mcp-sessions.ts. */
export const LEGACY_PROTOCOL_VERSIONS = new Set(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);

const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/** The tool list changes only with a deploy: clients may keep it this long. */
const TOOLS_LIST_TTL_MS = 60_000;
/** What a Multi Round-Trip request state is sealed for. */
const REQUEST_STATE_PURPOSE = "mcp-request-state";
/** How long a client may take to answer a round (a person answers a form). */
const REQUEST_STATE_TTL_MS = 60 * 60_000;
/** Methods of the handshake era that this revision removed. */
const REMOVED_METHODS = new Set(["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]);

export type ModernServerOptions = {
  store: ToolStore;
  env: Readonly<Record<string, unknown>>;
  secret: CryptoKey;
  serverInfo: { name: string; version: string };
  describeTool: (tool: AgentTool) => Record<string, unknown>;
  now?: number;
};

type JsonRpcId = string | number;
type Incoming = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
type Params = Record<string, unknown> & { _meta?: Record<string, unknown> };
/** One question of a round, as the client sees it (its key names the answer in inputResponses). */
type InputRequest = { method: "elicitation/create" | "sampling/createMessage" | "roots/list"; params: Record<string, unknown> };
/** The sealed state of a call between rounds: which call, and every answer so far in asking order. */
type RequestState = { tool: string; args: string; answers: unknown[]; issued: number };

class RpcError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Whether a request belongs to this revision: its header names a version outside the handshake era, or its body carries this revision's `_meta`. */
export async function isModernRequest(request: Request): Promise<boolean> {
  if (request.method !== "POST") return false;
  const header = request.headers.get("mcp-protocol-version");
  if (header) return !LEGACY_PROTOCOL_VERSIONS.has(header);
  try {
    const body = (await request.clone().json()) as Incoming;
    const meta = (body?.params as Params | undefined)?._meta;
    return !!meta && typeof meta === "object" && META.protocolVersion in meta;
  } catch {
    return false;
  }
}

/** Serves one HTTP request of a 2026-07-28 client. */
export async function serveModernRequest(request: Request, options: ModernServerOptions): Promise<Response> {
  let message: Incoming;
  try {
    message = (await request.json()) as Incoming;
  } catch {
    return errorResponse(null, new RpcError(400, -32700, "Parse error"));
  }
  if (!message || typeof message !== "object" || Array.isArray(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string")
    return errorResponse(idOf(message), new RpcError(400, -32600, "Invalid Request"));
  const id = idOf(message);
  // A notification: nothing to answer (cancellation has nothing to cancel across requests).
  if (id === null) return new Response(null, { status: 202 });
  try {
    const params = (message.params && typeof message.params === "object" ? message.params : {}) as Params;
    checkEnvelope(request, message.method, params);
    return await dispatch(message.method, params, id, options);
  } catch (err) {
    if (err instanceof RpcError) return errorResponse(id, err);
    return errorResponse(id, new RpcError(500, -32603, err instanceof Error ? err.message : String(err)));
  }
}

/** The per-request envelope: header and `_meta` must name the same supported version, with the client's capabilities. */
function checkEnvelope(request: Request, method: string, params: Params): void {
  const header = request.headers.get("mcp-protocol-version");
  if (!header) throw new RpcError(400, -32020, "Missing MCP-Protocol-Version header");
  const meta = params._meta;
  const missing = [META.protocolVersion, META.clientCapabilities].filter(
    (key) => !meta || typeof meta !== "object" || meta[key] === undefined,
  );
  if (missing.length > 0) throw new RpcError(400, -32602, `Invalid params: _meta is missing ${missing.join(", ")}`);
  const version = meta![META.protocolVersion];
  if (version !== header) throw new RpcError(400, -32020, "MCP-Protocol-Version header does not match _meta protocolVersion");
  if (version !== MODERN_PROTOCOL_VERSION)
    throw new RpcError(400, -32022, "Unsupported protocol version", { supported: SUPPORTED_PROTOCOL_VERSIONS, requested: String(version) });
  checkStandardHeaders(request, method, params);
}

/**
 * SEP-2243: the request's Mcp-Method (and, for a request naming a tool, Mcp-Name) header must say what
 * its body says, so what routes or filters by header (a gateway, a WAF rule) sees the request that runs.
 * Values are compared case-sensitively after trimming the whitespace HTTP allows around them.
 */
function checkStandardHeaders(request: Request, method: string, params: Params): void {
  const header = request.headers.get("mcp-method")?.trim();
  if (header === undefined) throw new RpcError(400, -32020, "Missing Mcp-Method header");
  if (header !== method) throw new RpcError(400, -32020, `Mcp-Method header "${header}" does not match the body's method "${method}"`);
  const named = method === "tools/call" || method === "prompts/get" ? params.name : method === "resources/read" ? params.uri : undefined;
  if (typeof named !== "string") return;
  const name = request.headers.get("mcp-name")?.trim();
  if (name === undefined) throw new RpcError(400, -32020, "Missing Mcp-Name header");
  if (name !== named) throw new RpcError(400, -32020, `Mcp-Name header "${name}" does not match the body's "${named}"`);
}

async function dispatch(method: string, params: Params, id: JsonRpcId, options: ModernServerOptions): Promise<Response> {
  switch (method) {
    case "server/discover":
      return resultResponse(id, {
        supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
        capabilities: { tools: {}, logging: {} },
        serverInfo: options.serverInfo,
        ttlMs: TOOLS_LIST_TTL_MS,
        cacheScope: "private",
        _meta: { [META.serverInfo]: options.serverInfo },
      });
    case "tools/list":
      return resultResponse(id, {
        tools: options.store.list().map(options.describeTool),
        ttlMs: TOOLS_LIST_TTL_MS,
        cacheScope: "private",
        _meta: { [META.serverInfo]: options.serverInfo },
      });
    case "tools/call":
      return callTool(params, id, options);
    default:
      throw new RpcError(
        404,
        -32601,
        REMOVED_METHODS.has(method) ? `Method not found: ${method} (removed in ${MODERN_PROTOCOL_VERSION})` : `Method not found: ${method}`,
      );
  }
}

async function callTool(params: Params, id: JsonRpcId, options: ModernServerOptions): Promise<Response> {
  const name = params.name;
  if (typeof name !== "string") throw new RpcError(400, -32602, "Invalid params: tools/call needs a tool name");
  const args =
    params.arguments && typeof params.arguments === "object" && !Array.isArray(params.arguments)
      ? (params.arguments as Record<string, unknown>)
      : {};
  const meta = params._meta ?? {};
  const capabilities = (meta[META.clientCapabilities] ?? {}) as Record<string, unknown>;
  const level = TOOL_LOG_LEVELS.includes(meta[META.logLevel] as ToolLogLevel) ? (meta[META.logLevel] as ToolLogLevel) : undefined;
  const token = meta.progressToken;
  const now = options.now ?? Date.now();
  const argsText = JSON.stringify(args);

  // The answers of earlier rounds (sealed) and of this one (inputResponses), in asking order.
  const answers: unknown[] = [];
  if (params.requestState !== undefined) {
    const state =
      typeof params.requestState === "string"
        ? ((await unseal(options.secret, REQUEST_STATE_PURPOSE, params.requestState)) as RequestState | undefined)
        : undefined;
    if (
      !state ||
      state.tool !== name ||
      state.args !== argsText ||
      !Array.isArray(state.answers) ||
      now - state.issued > REQUEST_STATE_TTL_MS
    )
      throw new RpcError(400, -32602, "Invalid params: requestState was not issued for this call");
    answers.push(...state.answers);
  }
  const responses =
    params.inputResponses && typeof params.inputResponses === "object" ? (params.inputResponses as Record<string, unknown>) : {};

  let asked = 0;
  /**
   * The questions this round leaves open. A tool that asks several at once (Promise.all) asks each before
   * the first one's refusal reaches it, so the round carries them all; one that awaits each asks one.
   */
  const pending = new Map<string, InputRequest>();
  /** An answer that breaks the protocol: the call ends with this error, whatever the tool made of it. */
  let invalid: RpcError | undefined;
  /** The answer to the next question: from an earlier round, from this retry, or none yet (the round ends). */
  const answer = (request: InputRequest, named?: string): unknown => {
    const index = asked++;
    if (index < answers.length) return answers[index];
    const key = named && /^[A-Za-z0-9_.-]{1,64}$/.test(named) ? named : `input_${index + 1}`;
    if (key in responses) {
      // The state keeps answers by asking order: one after a still-open question is asked again next round.
      if (answers.length === index) answers.push(responses[key]);
      return responses[key];
    }
    pending.set(key, request);
    throw new InputRequired();
  };
  const elicit = async (question: ToolElicitation): Promise<ToolElicitationAnswer> => {
    const reply = answer(
      { method: "elicitation/create", params: { mode: "form", message: question.message, requestedSchema: question.requestedSchema } },
      question.key,
    ) as Partial<ToolElicitationAnswer> | undefined;
    const action = reply && typeof reply === "object" ? reply.action : undefined;
    if (action !== "accept" && action !== "decline" && action !== "cancel") {
      invalid ??= new RpcError(400, -32602, "Invalid params: an elicitation answer needs an action");
      throw invalid;
    }
    return { action, ...(reply?.content && typeof reply.content === "object" ? { content: reply.content } : {}) };
  };
  const sample = async (question: ToolSampling): Promise<ToolSamplingAnswer> => {
    const reply = answer(
      {
        method: "sampling/createMessage",
        params: {
          messages: question.messages.map((m) => ({ role: m.role, content: { type: "text", text: m.text } })),
          maxTokens: question.maxTokens,
          ...(question.systemPrompt !== undefined ? { systemPrompt: question.systemPrompt } : {}),
        },
      },
      question.key,
    ) as { content?: { type?: string; text?: string }; model?: string } | undefined;
    const content = reply && typeof reply === "object" ? reply.content : undefined;
    if (!content || typeof content !== "object") {
      invalid ??= new RpcError(400, -32602, "Invalid params: a sampling answer needs content");
      throw invalid;
    }
    return { text: content.type === "text" ? String(content.text ?? "") : `[${content.type}]`, model: String(reply?.model ?? "") };
  };

  const roots = async (question?: { key?: string }): Promise<ToolRoot[]> => {
    const reply = answer({ method: "roots/list", params: {} }, question?.key) as { roots?: unknown } | undefined;
    if (!reply || typeof reply !== "object" || !Array.isArray(reply.roots)) {
      invalid ??= new RpcError(400, -32602, "Invalid params: a roots/list answer needs roots");
      throw invalid;
    }
    return reply.roots
      .filter((r): r is { uri: string; name?: unknown } => !!r && typeof r === "object" && typeof (r as { uri?: unknown }).uri === "string")
      .map((r) => ({ uri: r.uri, ...(typeof r.name === "string" ? { name: r.name } : {}) }));
  };

  const notes: unknown[] = [];
  let count = 0;
  const log = (logLevel: ToolLogLevel, data: unknown) => {
    if (!level || TOOL_LOG_LEVELS.indexOf(logLevel) < TOOL_LOG_LEVELS.indexOf(level)) return;
    notes.push({ jsonrpc: "2.0", method: "notifications/message", params: { level: logLevel, logger: name, data } });
  };
  const canElicit = capabilities.elicitation !== undefined;
  // A tool that asks what the client did not declare it can answer ends the call with -32021.
  let missing: "elicitation" | "sampling" | "roots" | undefined;
  const requiring =
    <Q, A>(capability: "elicitation" | "sampling" | "roots", ask: (question: Q) => Promise<A>) =>
    (question: Q): Promise<A> => {
      if (capabilities[capability] !== undefined) return ask(question);
      missing ??= capability;
      return Promise.reject(new Error(`The client did not declare the ${capability} capability`));
    };
  const host: ToolHost = { sessionId: "", env: options.env, capabilities: { registerDraft: () => false, bundledToolNames: () => [] } };
  const tool = options.store.get(name);
  const outcome = await runServedToolCall(options.store, name, args, {
    toolContext: {
      ...(tool ? contextFor(tool, host) : { env: {} }),
      log,
      elicit: requiring("elicitation", elicit),
      sample: requiring("sampling", sample),
      roots: requiring("roots", roots),
    },
    elicit: canElicit ? elicit : undefined,
    onPartialResult: (partial) => {
      if (token === undefined) return;
      notes.push({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, ...progressOf(partial, ++count) } });
    },
  });
  if (invalid) throw invalid;
  if (missing)
    throw new RpcError(400, -32021, `Missing required client capability: ${missing}`, { requiredCapabilities: { [missing]: {} } });
  let result: Record<string, unknown>;
  if (pending.size > 0) {
    const state: RequestState = { tool: name, args: argsText, answers, issued: now };
    result = {
      resultType: "input_required",
      inputRequests: Object.fromEntries(pending),
      requestState: await seal(options.secret, REQUEST_STATE_PURPOSE, state),
    };
  } else {
    result = { ...toCallToolResult(outcome.result, outcome.isError, tool?.outputSchema !== undefined), resultType: "complete" };
  }
  const final = { jsonrpc: "2.0", id, result };
  if (notes.length === 0) return Response.json(final);
  // Notifications first, then the result, as one SSE response.
  const body = [...notes, final].map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join("");
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

/** Thrown by a question that has no answer yet: the round ends with input_required. */
class InputRequired extends Error {
  constructor() {
    super("This call needs the client's input first");
  }
}

function idOf(message: unknown): JsonRpcId | null {
  const id = (message as Incoming | null)?.id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

function resultResponse(id: JsonRpcId, result: Record<string, unknown>): Response {
  return Response.json({ jsonrpc: "2.0", id, result: { resultType: "complete", ...result } });
}

function errorResponse(id: JsonRpcId | null, err: RpcError): Response {
  const error = { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) };
  return Response.json({ jsonrpc: "2.0", id, error }, { status: err.status });
}
