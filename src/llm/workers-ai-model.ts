/**
 * The Workers AI adapter: an LlmCall over the `AI` binding (`[ai] binding = "AI"`), chosen with
 * MODEL_PROVIDER="workers-ai". Same contract as the OpenAI adapter: text deltas to onTextDelta as the
 * binding's SSE stream delivers them, tool calls and usage in the same LlmResponse, failures as LlmError,
 * retries (capacity, timeouts, dropped connections) through retry.ts with each wait capped by
 * maxRetryDelayMs. Invariant: once text was delivered, a failure is `stream_interrupted`, never retried.
 */
import type { ChatMessage, LlmCall, LlmRequest, LlmResponse } from "../core/index.ts";
import { SseParser } from "../wire/sse-parser.ts";
import { guardAttempt } from "./attempt-guard.ts";
import { LlmError } from "./llm-error.ts";
import type { CompletionParts } from "./openai-response.ts";
import { listJsonLength } from "./request-json.ts";
import { llmRetryPolicy, runLlmAttempts } from "./llm-attempts.ts";
import { estimateUsage } from "./usage.ts";
import { createWorkersAiStreamAccumulator, readWorkersAiResult } from "./workers-ai-response.ts";
import { toWorkersAiError } from "./workers-ai-errors.ts";

export const WORKERS_AI_API = "workers-ai";
/** Workers AI's own default is 256 output tokens, which cuts ordinary answers short. */
export const WORKERS_AI_MAX_TOKENS = 2_048;
export const WORKERS_AI_TIMEOUT_MS = 120_000;

/** The slice of the `Ai` binding this adapter uses; tests pass a stand-in with the same shape. */
export type WorkersAiBinding = {
  run(model: string, inputs: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
};

export type WorkersAiLlmOptions = {
  binding: WorkersAiBinding | undefined;
  model: string;
  maxRetryDelayMs?: number;
  maxRetries?: number;
  initialRetryDelayMs?: number;
  /** Per attempt: the longest wait for the answer to start, and while streaming, between two events. */
  timeoutMs?: number;
  /** Default true. */
  stream?: boolean;
};

export function createWorkersAiLlmCall(options: WorkersAiLlmOptions): LlmCall {
  const { binding, model } = options;
  if (!binding) {
    const error = new LlmError(
      'MODEL_PROVIDER is "workers-ai" but the Worker has no AI binding: add `[ai] binding = "AI"` to wrangler.toml ' +
        "(under wrangler dev it needs `npm run dev:remote` and a Cloudflare login)",
      { kind: "config", retryable: false },
    );
    return () => Promise.reject(error);
  }
  const policy = llmRetryPolicy(options);
  const stream = options.stream ?? true;
  const timeoutMs = options.timeoutMs ?? WORKERS_AI_TIMEOUT_MS;

  return async (request, call) => {
    const inputs = toInputs(request, stream, call.maxTokens);
    const parts = await runLlmAttempts(policy, call, ({ deliver, delivered }) =>
      attemptOnce(binding, model, inputs, { stream, timeoutMs }, deliver, delivered, call.signal),
    );
    return toResponse(parts, request, model);
  };
}

/** Workers AI takes OpenAI-style messages; text-only content goes as a plain string, which every model reads. */
function toInputs(request: LlmRequest, stream: boolean, maxTokens: number | undefined): Record<string, unknown> {
  const messages = request.messages.map((message): ChatMessage => {
    if (message.role === "user" && Array.isArray(message.content) && message.content.every((part) => part.type === "text")) {
      return { role: "user", content: message.content.map((part) => (part.type === "text" ? part.text : "")).join("\n") };
    }
    if (message.role === "assistant" && message.content === null) return { ...message, content: "" };
    return message;
  });
  return {
    messages,
    ...(request.tools.length > 0 ? { tools: request.tools } : {}),
    max_tokens: maxTokens === undefined ? WORKERS_AI_MAX_TOKENS : Math.max(1, Math.min(WORKERS_AI_MAX_TOKENS, Math.floor(maxTokens))),
    ...(stream ? { stream: true } : {}),
  };
}

type AttemptSettings = { stream: boolean; timeoutMs: number };

async function attemptOnce(
  binding: WorkersAiBinding,
  model: string,
  inputs: Record<string, unknown>,
  { timeoutMs }: AttemptSettings,
  deliver: (text: string) => void,
  hasDelivered: () => boolean,
  signal: AbortSignal | undefined,
): Promise<CompletionParts> {
  const { controller, state, armTimer, dispose } = guardAttempt(signal, timeoutMs);
  // The binding may not watch the signal while a stream is read: cancelling the reader ends the read.
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  controller.signal.addEventListener("abort", () => void reader?.cancel().catch(() => {}), { once: true });
  try {
    armTimer();
    const output = await raceAbort(binding.run(model, inputs, { signal: controller.signal }), controller.signal);
    if (!(output instanceof ReadableStream)) return readWorkersAiResult(output);
    reader = output.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    const parser = new SseParser();
    const accumulator = createWorkersAiStreamAccumulator();
    for (;;) {
      const { done, value } = await reader.read();
      if (controller.signal.aborted) throw controller.signal.reason;
      if (done) break;
      armTimer();
      for (const item of parser.feed(value)) {
        if (item.kind !== "message") continue;
        const text = accumulator.add(item.data);
        if (text) deliver(text);
      }
    }
    if (!accumulator.finished)
      throw new LlmError("Workers AI stream ended before the model finished its answer", { kind: "network", retryable: true });
    return accumulator.result();
  } catch (err) {
    const error = toWorkersAiError(err, state);
    if (error.retryable && hasDelivered()) {
      throw new LlmError(
        `Workers AI stream broke after text was already streamed (not retried, so the text is not repeated): ${error.message}`,
        {
          kind: "stream_interrupted",
          retryable: false,
          cause: error,
        },
      );
    }
    throw error;
  } finally {
    dispose();
  }
}

/** Settles with the promise, or rejects with the signal's reason as soon as it aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function toResponse(parts: CompletionParts, request: LlmRequest, model: string): LlmResponse {
  const output = parts.content.map((b) => (b.type === "text" ? b.text : b.name + b.arguments)).join("");
  return {
    role: "assistant",
    content: parts.content,
    api: WORKERS_AI_API,
    provider: "workers-ai",
    model,
    usage: parts.usage ?? estimateUsage(listJsonLength(request.messages), output),
    stopReason: parts.stopReason,
    timestamp: Date.now(),
  };
}
