/**
 * Model fallback (MODEL_FALLBACKS): when a step's call to the session's model still fails after its
 * retries with a retryable error (429, 5xx, network, timeout), the same request goes to each fallback in
 * order until one answers; a request error (400 and other 4xx), an abort or a configuration error never
 * falls back. Each switch is told to `onFallback` (the session publishes it as `modelFallback`). Every
 * call starts with the primary again, so the next step tries the session's model first. A fallback never
 * takes over an answer whose text already streamed (the client holds part of another answer).
 * Fallback calls are built on first use: a session whose model answers never builds one.
 */
import type { LlmCall } from "../core/index.ts";
import { describeError } from "../core/index.ts";
import { LlmError } from "./llm-error.ts";
import { isRetryableStatus } from "./retry.ts";

export type ModelFallbackInfo = { from: string; to: string; reason: string };
export type FallbackModel = { name: string; build: () => LlmCall };

/** Whether a failed call (after its retries) may go to the next model: the provider's fault, not the request's. */
export function mayFallBack(err: unknown): boolean {
  if (!(err instanceof LlmError)) return false;
  switch (err.kind) {
    case "network":
    case "timeout":
      return true;
    case "http":
      return err.status === undefined ? err.retryable || isRetryableCause(err) : isRetryableStatus(err.status);
    default:
      return isRetryableCause(err);
  }
}

// "gave up after N attempts" wraps the last retryable error as non-retryable; its cause says what it was.
function isRetryableCause(err: LlmError): boolean {
  const cause = err.cause;
  return cause instanceof LlmError && cause !== err && mayFallBack(cause);
}

export function withModelFallbacks(
  primary: { name: string; call: LlmCall },
  fallbacks: readonly FallbackModel[],
  onFallback: (info: ModelFallbackInfo) => void,
): LlmCall {
  if (fallbacks.length === 0) return primary.call;
  const built = new Map<string, LlmCall>();
  const callOf = (model: FallbackModel): LlmCall => {
    let call = built.get(model.name);
    if (!call) {
      call = model.build();
      built.set(model.name, call);
    }
    return call;
  };
  return async (request, options) => {
    let streamed = false;
    const tracked = {
      ...options,
      onTextDelta: (text: string) => {
        streamed = true;
        options.onTextDelta?.(text);
      },
    };
    let from = primary.name;
    try {
      return await primary.call(request, tracked);
    } catch (first) {
      let err = first;
      for (const model of fallbacks) {
        if (streamed || options.signal?.aborted || !mayFallBack(err)) throw err;
        onFallback({ from, to: model.name, reason: describeError(err) });
        from = model.name;
        try {
          return await callOf(model)(request, tracked);
        } catch (next) {
          err = next;
        }
      }
      throw err;
    }
  };
}
