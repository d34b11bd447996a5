/**
 * takeResponse's long poll: callers waiting for the next final answer park here and are woken when a run
 * ends (its end calls wakeAll) or when the session shuts down. A run that ends while a caller waits and no
 * older answer is unread hands its answer to the caller who has waited longest (`takeWaiting`) instead of
 * queueing it: the answer then costs no queue row (an insert and a delete; a row written is the dearest
 * unit of a turn's bill, docs/benchmarks.md "What a turn costs"). The caller's answer leaves only once the
 * run's end is stored (the output gate), as a taken row's did; the answer stays in history and the events.
 * Waiters live in memory only; a restart ends their requests, and clients simply ask again.
 */
import type { AssistantMessage } from "../../core/index.ts";
import type { SessionQueues } from "../storage/session-queues.ts";
import { ok, type SessionResult } from "../session-result.ts";

/** Longest takeResponse wait the API accepts. */
export const MAX_RESPONSE_WAIT_MS = 60_000;

/** Ends a caller's wait: with the answer handed to it, or with none (look in the queue, or wait on). */
export type Taker = (answer?: AssistantMessage) => void;

export class OutputWaiters {
  /** In the order they started waiting. */
  private readonly waiters = new Set<Taker>();

  /** Resolves after `ms` with nothing, earlier when woken, or with an answer handed over. */
  wait(ms: number): Promise<AssistantMessage | undefined> {
    return new Promise((resolve) => {
      const wake: Taker = (answer) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(answer);
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }

  /** The caller who has waited longest, no longer waiting: the run's end hands it its answer (or nothing, if that end fails). */
  takeWaiting(): Taker | undefined {
    const [first] = this.waiters;
    if (first) this.waiters.delete(first);
    return first;
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
    const handed = await waiters.wait(left);
    if (handed) return ok({ message: handed });
  }
}
