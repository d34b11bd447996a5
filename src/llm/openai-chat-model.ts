/**
 * The OpenAI-compatible Chat Completions adapter: an LlmCall over plain fetch (chat-completions-http.ts).
 * Streams text deltas to onTextDelta and accumulates tool-call deltas; retries 408/429/5xx, network errors
 * and timeouts with backoff capped by maxRetryDelayMs.
 * Invariant: once any text delta was delivered, a failure is thrown as `stream_interrupted`, never
 * retried, so a listener never sees the same text twice.
 */
import type { ChatCompletionCreateParamsBase } from "openai/resources/chat/completions";
import type { LlmCall, LlmRequest, LlmResponse } from "../core/index.ts";
import { LlmError } from "./llm-error.ts";
import { guardAttempt } from "./attempt-guard.ts";
import {
  chatCompletionsEndpoint,
  postChatCompletions,
  readCompletionBody,
  readCompletionChunks,
  type ChatCompletionsEndpoint,
} from "./chat-completions-http.ts";
import { toLlmError } from "./openai-errors.ts";
import { createChunkAccumulator, readCompletion, type CompletionParts } from "./openai-response.ts";
import { listJsonLength, RequestEncoder, type EncodedRequest } from "./request-json.ts";
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
};

type RequestBody = Omit<ChatCompletionCreateParamsBase, "stream">;

export function createOpenAiLlmCall(options: OpenAiLlmOptions): LlmCall {
  const endpoint = chatCompletionsEndpoint(options.baseURL, options.apiKey, options.fetch);
  if (endpoint === undefined) {
    const error = new LlmError(`The LLM base URL is not a valid http(s) URL: ${JSON.stringify(options.baseURL)}`, {
      kind: "config",
      retryable: false,
    });
    return () => Promise.reject(error);
  }
  const provider = options.baseURL ? new URL(endpoint.url).host : "openai";
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const stream = options.stream ?? true;
  const includeUsage = options.includeStreamUsage ?? true;
  const policy = llmRetryPolicy(options);
  // One encoder per adapter instance: the run driver makes one per run, whose requests extend each other.
  const encoder = new RequestEncoder();

  return async (request, call) => {
    const body = toRequestBody(request, options.model, call.maxTokens);
    const settings: AttemptSettings = { body, stream, includeUsage, timeoutMs, encoder };
    const parts = await runLlmAttempts(policy, call, ({ deliver, delivered }) =>
      attemptOnce(endpoint, settings, deliver, delivered, call.signal),
    );
    return toResponse(parts, request, options.model, provider);
  };
}

function toRequestBody(request: LlmRequest, model: string, maxTokens: number | undefined): RequestBody {
  // OpenAI rejects an empty `tools` array, so no tools means no field.
  return {
    model,
    messages: request.messages,
    ...(request.tools.length > 0 ? { tools: request.tools } : {}),
    ...(maxTokens === undefined ? {} : { max_tokens: Math.max(1, Math.floor(maxTokens)) }),
  };
}

type AttemptSettings = { body: RequestBody; stream: boolean; includeUsage: boolean; timeoutMs: number; encoder: RequestEncoder };

/** One attempt with its own timeout, linked to the caller's signal. */
async function attemptOnce(
  endpoint: ChatCompletionsEndpoint,
  { body, stream, includeUsage, timeoutMs, encoder }: AttemptSettings,
  deliver: (text: string) => void,
  hasDelivered: () => boolean,
  signal: AbortSignal | undefined,
): Promise<CompletionParts> {
  const { controller, state, armTimer, dispose } = guardAttempt(signal, timeoutMs);
  let request: EncodedRequest | undefined;
  try {
    armTimer();
    // The body goes out as ready bytes, most of them encoded at earlier steps (request-json.ts).
    request = encoder.encode(
      stream ? { ...body, stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) } : { ...body, stream: false },
    );
    const response = await postChatCompletions(endpoint, request.bytes, stream, controller.signal);
    if (!stream) return readCompletion(await readCompletionBody(response));
    const accumulator = createChunkAccumulator();
    for await (const chunk of readCompletionChunks(response, armTimer)) {
      const text = accumulator.add(chunk);
      if (text) deliver(text);
    }
    if (controller.signal.aborted) throw controller.signal.reason;
    if (!accumulator.finished)
      throw new LlmError("LLM stream ended before the model finished its answer", { kind: "network", retryable: true });
    return accumulator.result();
  } catch (err) {
    const error = toLlmError(err, state, endpoint.url);
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
    // The response is read (or the request failed): fetch no longer reads the body's bytes.
    request?.done();
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
    usage: parts.usage ?? estimateUsage(listJsonLength(request.messages), output),
    stopReason: parts.stopReason,
    timestamp: Date.now(),
  };
}
