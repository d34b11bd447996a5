/**
 * A scriptable OpenAI-compatible Chat Completions server (node:http on 127.0.0.1) for the LLM adapter
 * tests, the wrangler-dev end-to-end tests and the benchmark (scripts/bench), so it lives outside test/.
 * Replies come from the enqueued script first, then from the handler, then a default echo. Streams SSE
 * chunks with tool-call deltas split across chunks.
 * Written in erasable TypeScript only, so Node 22 runs it directly:
 * `node_modules/.bin/node support/mock-openai-server.ts --port 8787`.
 */
import { createServer } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";

export type MockToolCall = { id?: string; name: string; arguments: string | Record<string, unknown> };

/** One scripted answer. With `status` ≥ 400 it is an HTTP error; otherwise a completion. */
export type MockReply = {
  /** Assistant text; streamed one word per chunk. */
  text?: string;
  toolCalls?: MockToolCall[];
  /** Default: "tool_calls" when there are tool calls, else "stop". */
  finishReason?: "stop" | "length" | "tool_calls" | "content_filter";
  status?: number;
  /** The error message in the default error body `{error:{message,type,code}}`. */
  errorMessage?: string;
  /** A raw error body (object → JSON, string → as is) replacing the default one. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait before answering at all (headers included). */
  delayMs?: number;
  /** Wait between stream chunks. */
  chunkDelayMs?: number;
  /** Destroy the connection after this many SSE `data:` chunks (streaming only). */
  cutAfterChunks?: number;
  /** Send the tool calls' argument fragments round-robin instead of one call after another. */
  interleaveToolCalls?: boolean;
  /** Characters per tool-call argument fragment. */
  argumentChunkSize?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  model?: string;
};

export type MockChatRequest = {
  model?: string;
  messages?: unknown[];
  tools?: unknown[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
};

export type RecordedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: MockChatRequest;
  /** Size of the request body in bytes, as received. */
  bytes: number;
};

export type MockHandler = (request: RecordedRequest) => MockReply | Promise<MockReply>;

export type MockOpenAiServer = {
  /** Base URL ending in `/v1`, ready for the SDK's `baseURL`. */
  url: string;
  port: number;
  /** Every chat completion request received, in order. */
  requests: RecordedRequest[];
  enqueue(...replies: MockReply[]): void;
  /** Answers requests once the script is used up; `undefined` restores the default echo. */
  setHandler(handler: MockHandler | undefined): void;
  /** Clears the script, the handler and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
};

/**
 * Timing taps for the benchmark, in `performance.now()` milliseconds of this process. `received` fires
 * once the body is parsed, with the times the request's headers and its body's last byte arrived (a large
 * body arrives in many reads, so the two differ); `replied` fires when the last byte of the reply was
 * handed to the socket.
 */
export type MockTimingHooks = {
  received?: (request: RecordedRequest, receivedAt: number, bodyReceivedAt: number) => void;
  replied?: (request: RecordedRequest, repliedAt: number) => void;
};

export type MockServerOptions = {
  port?: number;
  host?: string;
  hooks?: MockTimingHooks;
  /**
   * Whether `requests` records each request (default true, for tests that check what was sent). The
   * benchmark turns it off: a thousand parsed 250 KB bodies kept alive make this process's GC, on the same
   * cores as the runtime measured, part of what it measures.
   */
  keepRequests?: boolean;
};

const CHAT_PATHS = new Set(["/v1/chat/completions", "/chat/completions"]);
const DEFAULT_ARGUMENT_CHUNK = 8;

export async function startMockOpenAi(options: MockServerOptions = {}): Promise<MockOpenAiServer> {
  const host = options.host ?? "127.0.0.1";
  const requests: RecordedRequest[] = [];
  const script: MockReply[] = [];
  let handler: MockHandler | undefined;
  let served = 0;

  const server = createServer((req, res) => {
    const receivedAt = performance.now();
    void handleRequest(req, res, receivedAt).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `Mock server failure: ${String(err)}`, type: "server_error" } });
      else res.destroy();
    });
  });

  async function handleRequest(req: IncomingMessage, res: ServerResponse, receivedAt: number): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
      sendJson(res, 200, { object: "list", data: [{ id: "mock-model", object: "model", created: 0, owned_by: "mock" }] });
      return;
    }
    if (req.method !== "POST" || !CHAT_PATHS.has(path)) {
      sendJson(res, 404, { error: { message: `No route for ${req.method} ${path}`, type: "invalid_request_error" } });
      return;
    }
    let body: MockChatRequest;
    const text = await readBody(req);
    const bodyReceivedAt = performance.now();
    try {
      body = JSON.parse(text) as MockChatRequest;
    } catch {
      sendJson(res, 400, { error: { message: "Request body is not valid JSON", type: "invalid_request_error" } });
      return;
    }
    const recorded: RecordedRequest = { method: req.method, path, headers: req.headers, body, bytes: Buffer.byteLength(text) };
    if (options.keepRequests !== false) requests.push(recorded);
    served += 1;
    const hooks = options.hooks;
    if (hooks?.replied) res.once("finish", () => hooks.replied?.(recorded, performance.now()));
    hooks?.received?.(recorded, receivedAt, bodyReceivedAt);
    const reply = script.shift() ?? (handler ? await handler(recorded) : echoReply(body));
    if (reply.delayMs) await waitUnlessClosed(reply.delayMs, res);
    if (res.destroyed) return;
    if (reply.status !== undefined && reply.status >= 400) return sendError(res, reply);
    if (body.stream) return sendStream(res, reply, recorded, served);
    sendJson(res, reply.status ?? 200, completionBody(reply, recorded, served), reply.headers);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://${host}:${port}/v1`,
    port,
    requests,
    enqueue: (...replies) => void script.push(...replies),
    setHandler: (next) => void (handler = next),
    reset: () => {
      script.length = 0;
      requests.length = 0;
      handler = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ── Replies ────────────────────────────────────────────────────────────────

/** The 400 OpenAI answers a request longer than the model's context window, body as OpenAI sends it. */
export function contextLengthExceeded(windowTokens: number, requestTokens: number): MockReply {
  return {
    status: 400,
    body: {
      error: {
        message: `This model's maximum context length is ${windowTokens} tokens. However, your messages resulted in ${requestTokens} tokens. Please reduce the length of the messages.`,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
  };
}

function echoReply(body: MockChatRequest): MockReply {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages[messages.length - 1] as { content?: unknown } | undefined;
  const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
  return { text: `Mock reply to: ${text}` };
}

function sendError(res: ServerResponse, reply: MockReply): void {
  const status = reply.status ?? 500;
  const body = reply.body ?? {
    error: {
      message: reply.errorMessage ?? `Mock error ${status}`,
      type: status < 500 ? "invalid_request_error" : "server_error",
      code: null,
      param: null,
    },
  };
  if (typeof body === "string") {
    res.writeHead(status, { "content-type": "text/plain", ...reply.headers });
    res.end(body);
    return;
  }
  sendJson(res, status, body, reply.headers);
}

function toolCallsOf(reply: MockReply, requestNumber: number) {
  return (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_mock_${requestNumber}_${index}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }));
}

function finishReasonOf(reply: MockReply): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? "tool_calls" : "stop");
}

/** Usage as the reply states it, else estimated at ~4 bytes per token (of the request body, not stringified again). */
function usageOf(reply: MockReply, request: RecordedRequest, requestNumber: number) {
  const output =
    (reply.text ?? "") +
    toolCallsOf(reply, requestNumber)
      .map((c) => c.name + c.arguments)
      .join("");
  const prompt = reply.usage?.prompt_tokens ?? Math.ceil(request.bytes / 4);
  const completion = reply.usage?.completion_tokens ?? Math.ceil(output.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function completionBody(reply: MockReply, request: RecordedRequest, requestNumber: number) {
  const body = request.body;
  const calls = toolCallsOf(reply, requestNumber);
  return {
    id: `chatcmpl-mock-${requestNumber}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: reply.model ?? body.model ?? "mock-model",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          ...(calls.length
            ? { tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        },
        finish_reason: finishReasonOf(reply),
        logprobs: null,
      },
    ],
    usage: usageOf(reply, request, requestNumber),
  };
}

// ── Streaming ──────────────────────────────────────────────────────────────

type ToolCallDelta = { index: number; id?: string; type?: "function"; function: { name?: string; arguments: string } };

/** The tool-call deltas: per call a header (id, name) then argument fragments, in order or round-robin. */
function toolCallDeltas(reply: MockReply, requestNumber: number): ToolCallDelta[] {
  const size = Math.max(1, reply.argumentChunkSize ?? DEFAULT_ARGUMENT_CHUNK);
  const perCall = toolCallsOf(reply, requestNumber).map((call, index) => {
    const deltas: ToolCallDelta[] = [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }];
    for (let i = 0; i < call.arguments.length; i += size)
      deltas.push({ index, function: { arguments: call.arguments.slice(i, i + size) } });
    return deltas;
  });
  if (!reply.interleaveToolCalls) return perCall.flat();
  const out: ToolCallDelta[] = [];
  for (let round = 0; perCall.some((d) => round < d.length); round++) {
    for (const deltas of perCall) if (round < deltas.length) out.push(deltas[round]!);
  }
  return out;
}

async function sendStream(res: ServerResponse, reply: MockReply, request: RecordedRequest, requestNumber: number): Promise<void> {
  const body = request.body;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...reply.headers });
  res.flushHeaders();
  const base = {
    id: `chatcmpl-mock-${requestNumber}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: reply.model ?? body.model ?? "mock-model",
  };
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });

  const chunks: unknown[] = [choice({ role: "assistant", content: "" })];
  for (const word of (reply.text ?? "").match(/\S+\s*|\s+/g) ?? []) chunks.push(choice({ content: word }));
  for (const delta of toolCallDeltas(reply, requestNumber)) chunks.push(choice({ tool_calls: [delta] }));
  chunks.push(choice({}, finishReasonOf(reply)));
  if (body.stream_options?.include_usage) chunks.push({ ...base, choices: [], usage: usageOf(reply, request, requestNumber) });

  let sent = 0;
  for (const chunk of chunks) {
    if (res.destroyed) return;
    if (reply.cutAfterChunks !== undefined && sent >= reply.cutAfterChunks) {
      res.destroy();
      return;
    }
    await writeFlushed(res, `data: ${JSON.stringify(chunk)}\n\n`);
    sent += 1;
    if (reply.chunkDelayMs) await waitUnlessClosed(reply.chunkDelayMs, res);
  }
  if (reply.cutAfterChunks !== undefined && sent >= reply.cutAfterChunks) {
    res.destroy();
    return;
  }
  res.end("data: [DONE]\n\n");
}

// ── Plumbing ───────────────────────────────────────────────────────────────

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

// Waiting for the write callback keeps a later `destroy()` from dropping chunks still in the buffer.
function writeFlushed(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    res.write(text, () => resolve());
  });
}

/** Sleeps, but wakes early when the client went away, so `close()` never waits on a scripted delay. */
function waitUnlessClosed(ms: number, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.on("close", done);
  });
}

// ── Standalone ─────────────────────────────────────────────────────────────

function readFlag(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
}

async function runFromCommandLine(argv: readonly string[]): Promise<void> {
  const port = Number(readFlag(argv, "--port") ?? 8787);
  const server = await startMockOpenAi({ port, host: readFlag(argv, "--host") ?? "127.0.0.1" });
  console.log(`mock OpenAI server listening on ${server.url}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void runFromCommandLine(process.argv.slice(2));
}
