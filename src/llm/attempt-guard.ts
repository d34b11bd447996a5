/**
 * One LLM attempt's abort wiring, shared by the OpenAI and Workers AI adapters: the caller's signal and an
 * idle timer both abort the attempt's own controller, and the flags record which one did, so each adapter's
 * error mapping can tell "the caller aborted" from "the server went silent". `dispose` must run in `finally`.
 */

export type AttemptState = { aborted: boolean; timedOut: boolean; timeoutMs: number };

export type AttemptGuard = {
  controller: AbortController;
  state: AttemptState;
  /** Marks activity (the request starting, a chunk arriving): a slow but steady stream is fine, a silent one is not. */
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
  // One timer per attempt, not one per chunk: a chunk only stamps the time, and the timer, when it fires,
  // sleeps again for what is left of the silence allowed since the last chunk.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastActivity = 0;
  const check = () => {
    const silentFor = Date.now() - lastActivity;
    if (silentFor < timeoutMs) {
      timer = setTimeout(check, timeoutMs - silentFor);
      return;
    }
    timer = undefined;
    state.timedOut = true;
    controller.abort(new Error("timeout"));
  };
  const armTimer = () => {
    lastActivity = Date.now();
    timer ??= setTimeout(check, timeoutMs);
  };
  const dispose = () => {
    clearTimeout(timer);
    timer = undefined;
    signal?.removeEventListener("abort", onAbort);
  };
  return { controller, state, armTimer, dispose };
}
