/**
 * Awaiting a deployer's hook without letting it hold the run: the hook gets a signal that aborts with
 * the run's signal or at the timeout, and the caller stops waiting at that moment even if the hook
 * ignores its signal. Used by the loop (prepareContext, formatMsgForLLM) and the per-call pipeline
 * (beforeToolCall, afterToolCall). Rejects with HookTimeoutError or the abort reason; never hangs.
 */

export class HookTimeoutError extends Error {
  constructor(hookName: string, timeoutMs: number) {
    super(`${hookName} hook timed out after ${timeoutMs} ms`);
    this.name = "HookTimeoutError";
  }
}

export class HookAbortedError extends Error {
  constructor(hookName: string) {
    super(`${hookName} hook stopped: the run was aborted`);
    this.name = "HookAbortedError";
  }
}

export async function runHook<T>(
  hookName: string,
  hook: (signal: AbortSignal) => T | Promise<T>,
  timeoutMs: number | undefined,
  signal?: AbortSignal,
): Promise<T> {
  if (signal?.aborted) throw new HookAbortedError(hookName);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => {
      controller.abort(signal?.reason);
      reject(new HookAbortedError(hookName));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined && timeoutMs > 0) {
      timer = setTimeout(() => {
        const error = new HookTimeoutError(hookName, timeoutMs);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    }
  });
  try {
    // Promise.resolve().then: a hook that throws synchronously rejects like an async one.
    return await Promise.race([Promise.resolve().then(() => hook(controller.signal)), stopped]);
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
