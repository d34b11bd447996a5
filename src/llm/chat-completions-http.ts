/**
 * One HTTP exchange with an OpenAI-compatible Chat Completions endpoint: POST `<baseURL>/chat/completions`
 * with the request's encoded JSON (request-json.ts), then either the parsed completion or the stream's chunks. Used by
 * openai-chat-model.ts, which owns timeouts, retries and accumulation. The wire format is OpenAI's public
 * one (docs/architecture.md "LLM endpoints: plain fetch, not the `openai` SDK" says why). Invariants: a non-2xx
 * answer becomes an LlmError naming the status and the server's own message, with any Retry-After it
 * asked for; a body that is not the format it should be is `invalid_response`, never retried.
 */
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import { CONTEXT_OVERFLOW_CODE, isPlainObject } from "../core/index.ts";
import { SseParser } from "../wire/sse-parser.ts";
import { LlmError } from "./llm-error.ts";
import { isRetryableStatus, parseRetryAfterMs } from "./retry.ts";

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
/** An error body is only read for its message; a gateway's HTML page need not be kept whole. */
const MAX_ERROR_TEXT_CHARS = 1_000;

export type ChatCompletionsEndpoint = {
  url: string;
  apiKey: string;
  fetch: typeof fetch;
};

/** The endpoint for a base URL (default OpenAI's); undefined when it is not a usable http(s) URL. */
export function chatCompletionsEndpoint(
  baseURL: string | undefined,
  apiKey: string,
  fetchImpl: typeof fetch = fetch,
): ChatCompletionsEndpoint | undefined {
  let base: URL;
  try {
    base = new URL(baseURL || DEFAULT_OPENAI_BASE_URL);
  } catch {
    return undefined;
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") return undefined;
  const path = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
  return { url: `${base.origin}${path}chat/completions${base.search}`, apiKey, fetch: fetchImpl };
}

/** Sends the request; a non-2xx answer is thrown as an LlmError. */
export async function postChatCompletions(
  endpoint: ChatCompletionsEndpoint,
  body: Uint8Array,
  stream: boolean,
  signal: AbortSignal,
): Promise<Response> {
  // Called unbound: workerd's fetch throws "Illegal invocation" when called as a method of another object.
  const send = endpoint.fetch;
  const response = await send(endpoint.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: stream ? "text/event-stream" : "application/json",
      authorization: `Bearer ${endpoint.apiKey}`,
    },
    body,
    signal,
  });
  if (!response.ok) throw await httpError(response);
  return response;
}

/** A non-streamed answer's completion. */
export async function readCompletionBody(response: Response): Promise<ChatCompletion> {
  const text = await response.text();
  const completion = parseJson(text, "completion");
  if (!isPlainObject(completion) || !Array.isArray(completion.choices)) {
    throw new LlmError(`LLM response is not a chat completion: ${preview(text)}`, { kind: "invalid_response", retryable: false });
  }
  return completion as unknown as ChatCompletion;
}

/** A streamed answer's chunks, until `data: [DONE]` or the end of the body; an in-stream error is thrown. */
export async function* readCompletionChunks(response: Response, onBytes: () => void): AsyncGenerator<ChatCompletionChunk> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const parser = new SseParser();
  let ended = false;
  let doneSeen = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      onBytes();
      // After [DONE] the body is read to its end rather than cancelled: fetch can then keep the connection.
      if (doneSeen) continue;
      for (const item of parser.feed(value)) {
        if (item.kind !== "message") continue;
        if (item.data === "[DONE]") {
          doneSeen = true;
          break;
        }
        const chunk = parseJson(item.data, "stream chunk");
        if (isPlainObject(chunk) && isPlainObject(chunk.error)) throw streamError(chunk.error);
        if (!isPlainObject(chunk))
          throw new LlmError(`LLM stream chunk is not an object: ${preview(item.data)}`, { kind: "invalid_response", retryable: false });
        yield chunk as unknown as ChatCompletionChunk;
      }
    }
  } finally {
    // An early exit (an error, an abort) lets the connection go.
    if (!ended) reader.cancel().catch(() => {});
  }
}

async function httpError(response: Response): Promise<LlmError> {
  const status = response.status;
  const text = await response.text().catch(() => "");
  const retryAfterMs = parseRetryAfterMs(response.headers);
  const message = serverMessage(text);
  // Servers without OpenAI's code (vLLM, llama.cpp) say it in the message of a 400.
  const code = serverCode(text) ?? (status === 400 && OVERFLOW_MESSAGE.test(message) ? CONTEXT_OVERFLOW_CODE : undefined);
  return new LlmError(`LLM request failed with HTTP ${status}: ${message || response.statusText || "no message"}`, {
    kind: "http",
    status,
    // "Context too long" is never worth the same request again (the session compacts instead).
    retryable: code !== CONTEXT_OVERFLOW_CODE && isRetryableStatus(status),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(code === undefined ? {} : { code }),
  });
}

/** How an OpenAI-compatible server without the code words "the request is longer than the model's window". */
const OVERFLOW_MESSAGE = /maximum context length|context length exceeded|context window|exceeds? the context|too many (input )?tokens/i;

/** OpenAI's `{"error":{"code"}}` (e.g. `context_length_exceeded`), when the body has one. */
function serverCode(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    if (isPlainObject(body) && isPlainObject(body.error) && typeof body.error.code === "string" && body.error.code) return body.error.code;
  } catch {
    // Not JSON: no code.
  }
  return undefined;
}

/** OpenAI's `{"error":{"message"}}`, some servers' `{"message"}` or `{"error":"…"}`, else the text itself. */
function serverMessage(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (isPlainObject(body)) {
      const error = body.error;
      if (isPlainObject(error) && typeof error.message === "string" && error.message) return error.message;
      if (typeof error === "string" && error) return error;
      if (typeof body.message === "string" && body.message) return body.message;
    }
  } catch {
    // Not JSON: the text is the message.
  }
  return text.trim().slice(0, MAX_ERROR_TEXT_CHARS);
}

function streamError(error: Record<string, unknown>): LlmError {
  const message = typeof error.message === "string" && error.message ? error.message : JSON.stringify(error).slice(0, MAX_ERROR_TEXT_CHARS);
  // Some servers accept the request and only then say it is longer than the model's window, in the stream:
  // the same "context too long" as a 400's (the session compacts and asks again, never a plain retry).
  const code =
    typeof error.code === "string" && error.code ? error.code : OVERFLOW_MESSAGE.test(message) ? CONTEXT_OVERFLOW_CODE : undefined;
  if (code === CONTEXT_OVERFLOW_CODE)
    return new LlmError(`LLM stream reported an error: ${message}`, { kind: "invalid_response", retryable: false, code });
  // The server gave up mid-answer (overload, an internal error): like a dropped connection, worth a retry.
  return new LlmError(`LLM stream reported an error: ${message}`, { kind: "network", retryable: true, ...(code ? { code } : {}) });
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new LlmError(`LLM ${what} is not JSON: ${preview(text)}`, { kind: "invalid_response", retryable: false });
  }
}

const preview = (text: string) => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
