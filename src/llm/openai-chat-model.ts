/**
 * The OpenAI-compatible Chat Completions adapter: an LlmCall over the `openai` SDK (the only folder that
 * imports it). Streams text deltas to onTextDelta and accumulates tool-call deltas; retries 408/429/5xx,
 * network errors and timeouts itself (the SDK's own retries are off) with backoff capped by maxRetryDelayMs.
 * Invariant: once any text delta was delivered, a failure is thrown as `stream_interrupted`, never
 * retried, so a listener never sees the same text twice.
 */
import OpenAI from "openai";
import type { ChatCompletionCreateParamsBase } from "openai/resources/chat/completions";
import type { LlmCall, LlmResponse } from "../core/agent-loop.ts";
import type { LlmRequest } from "../core/format-messages.ts";
import { LlmError } from "./llm-error.ts";
import { guardAttempt } from "./attempt-guard.ts";
import { toLlmError } from "./openai-errors.ts";
import { createChunkAccumulator, readCompletion, type CompletionParts } from "./openai-response.ts";
import { serializeChatRequest, serializeList } from "./request-json.ts";
import { llmRetryPolicy, runLlmAttempts } from "./llm-attempts.ts";
import { estimateUsage } from "./usage.ts";

export const OPENAI_API = "openai-chat-completions";
export const DEFAULT_TIMEOUT_MS = 120_000;

export type OpenAiLlmOptions = {
  apiKey: string;
  /** Any OpenAI-compatible endpoint; default OpenAI's. */
  baseURL?: string;
  model: string;
  /** Cap on one retry wait, the server's Retry-After included (the spec's maxRetryDelayMs). */
  maxRetryDelayMs?: number;
  /** Per attempt: the longest wait for the response to start, and while streaming, between two chunks. */
  timeoutMs?: number;
  /** Attempts after the first; default 3. */
  maxRetries?: number;
  /** Backoff before the first retry (doubles per retry); default 500 ms. */
  initialRetryDelayMs?: number;
  /** Default true. */
  stream?: boolean;
  /** Ask for usage in the stream's last chunk (`stream_options.include_usage`); default true. Turn off for servers that reject it. */
  includeStreamUsage?: boolean;
  fetch?: typeof fetch;
  /** Told before each retry wait, e.g. for logs. */
  onRetry?: (info: { retryNumber: number; delayMs: number; error: unknown }) => void;
};

type RequestBody = Omit<ChatCompletionCreateParamsBase, "stream">;

export function createOpenAiLlmCall(options: OpenAiLlmOptions): LlmCall {
  const provider = providerOf(options.baseURL);
  if (provider === undefined) {
    const error = new LlmError(`The LLM base URL is not a valid http(s) URL: ${JSON.stringify(options.baseURL)}`, { kind: "config", retryable: false });
    return () => Promise.reject(error);
  }
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    maxRetries: 0,
  });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const stream = options.stream ?? true;
  const includeUsage = options.includeStreamUsage ?? true;
  const policy = llmRetryPolicy(options);

  return async (request, call) => {
    const body = toRequestBody(request, options.model);
    const parts = await runLlmAttempts(policy, options.onRetry, call, ({ deliver, delivered }) => attemptOnce(client, { body, stream, includeUsage, timeoutMs }, deliver, delivered, call.signal));
    return toResponse(parts, request, options.model, provider);
  };
}

/** The provider name reported on responses: the endpoint's host; undefined when the URL is unusable. */
function providerOf(baseURL: string | undefined): string | undefined {
  if (!baseURL) return "openai";
  try {
    const url = new URL(baseURL);
    return url.protocol === "http:" || url.protocol === "https:" ? url.host : undefined;
  } catch {
    return undefined;
  }
}

function toRequestBody(request: LlmRequest, model: string): RequestBody {
  // OpenAI rejects an empty `tools` array, so no tools means no field.
  return {
    model,
    messages: request.messages,
    ...(request.tools.length > 0 ? { tools: request.tools } : {}),
  };
}

type AttemptSettings = { body: RequestBody; stream: boolean; includeUsage: boolean; timeoutMs: number };

/** One attempt with its own timeout, linked to the caller's signal. */
async function attemptOnce(
  client: OpenAI,
  { body, stream, includeUsage, timeoutMs }: AttemptSettings,
  deliver: (text: string) => void,
  hasDelivered: () => boolean,
  signal: AbortSignal | undefined,
): Promise<CompletionParts> {
  const { controller, state, armTimer, dispose } = guardAttempt(signal, timeoutMs);
  try {
    armTimer();
    const requestOptions = { signal: controller.signal, maxRetries: 0, timeout: timeoutMs };
    // The body goes out as ready JSON text: the SDK would otherwise walk every value of the whole history
    // through a JSON.stringify replacer at each step, and most of the text is already cached (request-json.ts).
    const asText = (params: RequestBody & { stream: boolean }) => ({
      ...requestOptions,
      body: serializeChatRequest(params),
      headers: { "content-type": "application/json" },
    });
    if (!stream) {
      const params = { ...body, stream: false as const };
      return readCompletion(await client.chat.completions.create(params, asText(params)));
    }
    const params = { ...body, stream: true as const, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) };
    const chunks = await client.chat.completions.create(params, asText(params));
    const accumulator = createChunkAccumulator();
    for await (const chunk of chunks) {
      armTimer();
      const text = accumulator.add(chunk);
      if (text) deliver(text);
    }
    // The SDK ends the iteration quietly when its signal aborts; an unfinished stream is an error either way.
    if (controller.signal.aborted) throw controller.signal.reason;
    if (!accumulator.finished) throw new LlmError("LLM stream ended before the model finished its answer", { kind: "network", retryable: true });
    return accumulator.result();
  } catch (err) {
    const error = toLlmError(err, state);
    if (error.retryable && hasDelivered()) {
      throw new LlmError(`LLM stream broke after text was already streamed (not retried, so the text is not repeated): ${error.message}`, {
        kind: "stream_interrupted",
        retryable: false,
        ...(error.status === undefined ? {} : { status: error.status }),
        cause: error,
      });
    }
    throw error;
  } finally {
    dispose();
  }
}

function toResponse(parts: CompletionParts, request: LlmRequest, model: string, provider: string): LlmResponse {
  const output = parts.content.map((b) => (b.type === "text" ? b.text : b.name + b.arguments)).join("");
  return {
    role: "assistant",
    content: parts.content,
    api: OPENAI_API,
    provider,
    model: parts.model ?? model,
    usage: parts.usage ?? estimateUsage(serializeList(request.messages), output),
    stopReason: parts.stopReason,
    timestamp: Date.now(),
  };
}
