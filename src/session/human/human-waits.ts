/**
 * Waiting for a person, the part the approval and elicitation gates share: each wait settles once, with
 * the answer given through `settle`, or with what `close` makes of its deadline passing or its signal
 * aborting. The gates keep their own rows (which survive restarts); this holds only the live waits.
 */

export type WaitEnd = "timeout" | "abort";

export class HumanWaits<A> {
  private readonly waiters = new Map<string, (answer: A) => void>();

  /** Waits until `deadline` (epoch ms) for an answer to `id`; `close` records why it ended and answers. */
  wait(id: string, deadline: number, signal: AbortSignal | undefined, close: (end: WaitEnd) => A): Promise<A> {
    return new Promise<A>((resolve) => {
      const settle = (answer: A) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiters.delete(id);
        resolve(answer);
      };
      const onAbort = () => settle(close("abort"));
      const timer = setTimeout(() => settle(close("timeout")), Math.max(0, deadline - Date.now()));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.set(id, settle);
    });
  }

  /** Whether someone in this object is waiting on `id` (a wait from before a restart is not). */
  isWaiting(id: string): boolean {
    return this.waiters.has(id);
  }

  /** Ends the wait on `id` with `answer`; false when nobody waits on it. */
  settle(id: string, answer: A): boolean {
    const settle = this.waiters.get(id);
    settle?.(answer);
    return settle !== undefined;
  }
}
