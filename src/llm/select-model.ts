/**
 * Chooses the LlmCall for a deployment from its configuration (wrangler vars/secrets or process.env):
 * MODEL_PROVIDER picks the OpenAI-compatible adapter, Workers AI (the AI binding) or the offline demo
 * model; unset, it is "openai" when OPENAI_API_KEY is set, else "offline" (so `npm start` needs no account).
 * A session may name its own model at creation, from the MODELS allowlist (default: the configured model).
 * Called by the router (the allowlist) and by the session host once per run; cheap, so no caching.
 */
import { readSetting } from "../config.ts";
import type { LlmCall } from "../core/index.ts";
import { LlmError } from "./llm-error.ts";
import { type FallbackModel, type ModelFallbackInfo, withModelFallbacks } from "./model-fallback.ts";
import { createOfflineLlmCall, OFFLINE_MODEL } from "./offline-model.ts";
import { createOpenAiLlmCall } from "./openai-chat-model.ts";
import { createWorkersAiLlmCall, type WorkersAiBinding } from "./workers-ai-model.ts";

export const MODEL_PROVIDERS = ["openai", "workers-ai", "offline"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export type LlmEnv = {
  MODEL_PROVIDER?: string | undefined;
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
  OPENAI_MODEL?: string | undefined;
  WORKERS_AI_MODEL?: string | undefined;
  /** Comma-separated models a session may choose; empty means only the configured one. */
  MODELS?: string | undefined;
  MAX_RETRY_DELAY_MS?: string | undefined;
  /** Comma-separated models tried in order when the session's model fails with a retryable error (model-fallback.ts). */
  MODEL_FALLBACKS?: string | undefined;
  /** "false" turns streaming off, for endpoints that cannot stream. */
  LLM_STREAM?: string | undefined;
  /** The Workers AI binding (`[ai] binding = "AI"`). */
  AI?: WorkersAiBinding | undefined;
};

export type LlmSelection =
  | { kind: "openai"; model: string; baseURL?: string; maxRetryDelayMs: number; stream: boolean }
  | { kind: "workers-ai"; model: string; maxRetryDelayMs: number; stream: boolean }
  | { kind: "offline" }
  | { kind: "invalid"; message: string };

/** Per run: the session's model (already checked against the allowlist), and who hears of a fallback. */
export type LlmChoice = { model?: string | undefined; onFallback?: (info: ModelFallbackInfo) => void };

/** `workers-ai:<model>` names a Workers AI model (the AI binding) whatever MODEL_PROVIDER says. */
const WORKERS_AI_PREFIX = "workers-ai:";

export function resolveProvider(env: LlmEnv): ModelProvider | { invalid: string } {
  const raw = readSetting(env, "MODEL_PROVIDER").toLowerCase();
  if (raw === "") return readSetting(env, "OPENAI_API_KEY") ? "openai" : "offline";
  return (MODEL_PROVIDERS as readonly string[]).includes(raw) ? (raw as ModelProvider) : { invalid: raw };
}

/** The model a session gets when it names none. */
export function configuredModel(env: LlmEnv): string {
  const provider = resolveProvider(env);
  if (provider === "workers-ai") return readSetting(env, "WORKERS_AI_MODEL");
  if (provider === "openai") return readSetting(env, "OPENAI_MODEL");
  return OFFLINE_MODEL;
}

/** The models a session may choose at creation: the configured one, plus MODELS. */
export function allowedModels(env: LlmEnv): string[] {
  return [...new Set([configuredModel(env), ...readSetting(env, "MODELS")])];
}

/** A session's requested model → the model to store, or a message naming the allowed ones. */
export function checkSessionModel(
  env: LlmEnv,
  requested: string | undefined,
): { ok: true; model: string } | { ok: false; message: string } {
  if (requested === undefined) return { ok: true, model: configuredModel(env) };
  const allowed = allowedModels(env);
  if (allowed.includes(requested)) return { ok: true, model: requested };
  return { ok: false, message: `model "${requested}" is not allowed here; allowed: ${allowed.join(", ")} (the MODELS setting lists them)` };
}

/** The model a session's runs use: its own while the allowlist still has it, else the configured one. */
export function sessionModel(env: LlmEnv, stored: string | undefined): string {
  return stored !== undefined && allowedModels(env).includes(stored) ? stored : configuredModel(env);
}

/** What selectLlmCall will build, without the secret; also what a status page may show. */
export function describeLlmSelection(env: LlmEnv, model?: string): LlmSelection {
  const provider = resolveProvider(env);
  if (typeof provider === "object") {
    return {
      kind: "invalid",
      message: `MODEL_PROVIDER must be one of ${MODEL_PROVIDERS.join(", ")} (or empty), not "${provider.invalid}"`,
    };
  }
  if (provider === "offline") return { kind: "offline" };
  const common = {
    model: model ?? configuredModel(env),
    maxRetryDelayMs: readSetting(env, "MAX_RETRY_DELAY_MS"),
    stream: readSetting(env, "LLM_STREAM"),
  };
  if (provider === "workers-ai") return { kind: "workers-ai", ...common };
  if (!readSetting(env, "OPENAI_API_KEY")) return { kind: "invalid", message: 'MODEL_PROVIDER is "openai" but OPENAI_API_KEY is not set' };
  const baseURL = readSetting(env, "OPENAI_BASE_URL");
  return { kind: "openai", ...common, ...(baseURL ? { baseURL } : {}) };
}

export function selectLlmCall(env: LlmEnv, choice: LlmChoice = {}): LlmCall {
  const primary = { name: choice.model ?? configuredModel(env), call: buildLlmCall(env, choice.model) };
  return withModelFallbacks(primary, modelFallbacks(env, primary.name), (info) => choice.onFallback?.(info));
}

/** MODEL_FALLBACKS in order, the session's own model left out; each built only when first needed. */
export function modelFallbacks(env: LlmEnv, primary: string): FallbackModel[] {
  const names = readSetting(env, "MODEL_FALLBACKS").filter((name) => name !== primary);
  return [...new Set(names)].map((name) => ({
    name,
    build: () =>
      name.startsWith(WORKERS_AI_PREFIX)
        ? createWorkersAiLlmCall({
            binding: env.AI,
            model: name.slice(WORKERS_AI_PREFIX.length),
            maxRetryDelayMs: readSetting(env, "MAX_RETRY_DELAY_MS"),
            stream: readSetting(env, "LLM_STREAM"),
          })
        : buildLlmCall(env, name),
  }));
}

function buildLlmCall(env: LlmEnv, model: string | undefined): LlmCall {
  const selection = describeLlmSelection(env, model);
  switch (selection.kind) {
    case "offline":
      return createOfflineLlmCall({ reason: readSetting(env, "MODEL_PROVIDER") ? "configured" : "no-key" });
    case "invalid": {
      const error = new LlmError(selection.message, { kind: "config", retryable: false });
      return () => Promise.reject(error);
    }
    case "workers-ai":
      return createWorkersAiLlmCall({
        binding: env.AI,
        model: selection.model,
        maxRetryDelayMs: selection.maxRetryDelayMs,
        stream: selection.stream,
      });
    case "openai":
      return createOpenAiLlmCall({
        apiKey: readSetting(env, "OPENAI_API_KEY"),
        model: selection.model,
        maxRetryDelayMs: selection.maxRetryDelayMs,
        stream: selection.stream,
        ...(selection.baseURL ? { baseURL: selection.baseURL } : {}),
      });
    default: {
      const unreachable: never = selection;
      throw new Error(`unknown LLM selection ${JSON.stringify(unreachable)}`);
    }
  }
}
