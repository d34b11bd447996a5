/**
 * Chooses the LlmCall for a deployment from its configuration (wrangler vars/secrets or process.env):
 * the OpenAI-compatible adapter when OPENAI_API_KEY is set, else the offline demo model. Called by the
 * session host once per run; cheap, so no caching. Malformed MAX_RETRY_DELAY_MS falls back to the default.
 */
import type { LlmCall } from "../core/agent-loop.ts";
import { createOfflineLlmCall } from "./offline-model.ts";
import { createOpenAiLlmCall } from "./openai-chat-model.ts";
import { DEFAULT_MAX_RETRY_DELAY_MS } from "./retry.ts";

export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

export type LlmEnv = {
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
  OPENAI_MODEL?: string | undefined;
  MAX_RETRY_DELAY_MS?: string | undefined;
  /** "false" turns streaming off, for endpoints that cannot stream. */
  OPENAI_STREAM?: string | undefined;
};

export type LlmSelection =
  | { kind: "openai"; model: string; baseURL?: string; maxRetryDelayMs: number; stream: boolean }
  | { kind: "offline" };

/** What selectLlmCall will build, without the secret; also what a status page may show. */
export function describeLlmSelection(env: LlmEnv): LlmSelection {
  if (!env.OPENAI_API_KEY?.trim()) return { kind: "offline" };
  const baseURL = env.OPENAI_BASE_URL?.trim();
  return {
    kind: "openai",
    model: env.OPENAI_MODEL?.trim() || DEFAULT_OPENAI_MODEL,
    ...(baseURL ? { baseURL } : {}),
    maxRetryDelayMs: parseMaxRetryDelayMs(env.MAX_RETRY_DELAY_MS),
    stream: env.OPENAI_STREAM?.trim().toLowerCase() !== "false",
  };
}

export function selectLlmCall(env: LlmEnv): LlmCall {
  const selection = describeLlmSelection(env);
  if (selection.kind === "offline") return createOfflineLlmCall();
  return createOpenAiLlmCall({
    apiKey: env.OPENAI_API_KEY!.trim(),
    model: selection.model,
    maxRetryDelayMs: selection.maxRetryDelayMs,
    stream: selection.stream,
    ...(selection.baseURL ? { baseURL: selection.baseURL } : {}),
  });
}

/** A plain non-negative decimal number of milliseconds; anything else (empty, "-1", "5s", "1e3") → 30000. */
export function parseMaxRetryDelayMs(raw: string | undefined): number {
  const text = raw?.trim() ?? "";
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : DEFAULT_MAX_RETRY_DELAY_MS;
}
