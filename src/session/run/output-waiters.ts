/**
 * takeResponse's long poll: callers waiting for the next final answer park here and are woken when a run
 * puts one on the output queue (the run's end calls wakeAll) or when the session shuts down. Waiters
 * live in memory only; a restart ends their requests, and clients simply ask again.
 */
import type { AssistantMessage } from "../../core/index.ts";
import type { SessionQueues } from "../storage/session-queues.ts";
import { ok, type SessionResult } from "../session-result.ts";

/** Longest takeResponse wait the API accepts. */
export const MAX_RESPONSE_WAIT_MS = 60_000;

export class OutputWaiters {
  private readonly waiters = new Set<() => void>();

  /** Resolves after `ms`, or earlier when woken. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }
}

type Outbox = {
  queues: SessionQueues;
  waiters: OutputWaiters;
  runs: { readonly isShutdown: boolean };
};

/** Pops the next final answer, waiting up to `waitMs` (capped) for one; null when none came. */
export async function takeResponse(
  { queues, waiters, runs }: Outbox,
  waitMs: number,
): Promise<SessionResult<{ message: AssistantMessage | null }>> {
  const deadline = Date.now() + Math.min(Math.max(0, waitMs), MAX_RESPONSE_WAIT_MS);
  for (;;) {
    const message = queues.takeOutput();
    if (message) return ok({ message });
    const left = deadline - Date.now();
    if (left <= 0 || runs.isShutdown) return ok({ message: null });
    await waiters.wait(left);
  }
}
