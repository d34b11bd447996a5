/**
 * One LLM attempt's abort wiring, shared by the OpenAI and Workers AI adapters: the caller's signal and an
 * idle timer both abort the attempt's own controller, and the flags record which one did, so each adapter's
 * error mapping can tell "the caller aborted" from "the server went silent". `dispose` must run in `finally`.
 */

export type AttemptState = { aborted: boolean; timedOut: boolean; timeoutMs: number };

export type AttemptGuard = {
  controller: AbortController;
  state: AttemptState;
  /** (Re)starts the idle timer: re-armed by every chunk, so a slow but steady stream is fine, a silent one is not. */
  armTimer: () => void;
  dispose: () => void;
};

export function guardAttempt(signal: AbortSignal | undefined, timeoutMs: number): AttemptGuard {
  const controller = new AbortController();
  const state: AttemptState = { aborted: false, timedOut: false, timeoutMs };
  const onAbort = () => {
    state.aborted = true;
    controller.abort(signal?.reason);
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const armTimer = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      state.timedOut = true;
      controller.abort(new Error("timeout"));
    }, timeoutMs);
  };
  const dispose = () => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  };
  return { controller, state, armTimer, dispose };
}
