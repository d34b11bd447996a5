/**
 * takeResponse's long poll: callers waiting for the next final answer park here and are woken when a run
 * ends (its end calls wakeAll) or when the session shuts down. An answer nobody waited for stays unread in
 * its runEnd event, the run record keeping its seq (run-record.ts): taking it reads that event and moves
 * the record's cursor past it, one row written. A run that ends while a caller waits and no older answer is
 * unread hands its answer to the caller who has waited longest (`takeWaiting`) instead: nothing is kept
 * unread and the take writes nothing (a row written is the dearest unit of a turn's bill, docs/benchmarks.md
 * "What a turn costs"). The caller's answer leaves only once the run's end is stored (the output gate); the
 * answer stays in history and the events. Waiters live in memory only; a restart ends their requests, and
 * clients simply ask again.
 */
import type { AssistantMessage } from "../../core/index.ts";
import type { EventLog } from "../events/event-log.ts";
import type { RunRecord } from "./run-record.ts";
import { ok, type SessionResult } from "../session-result.ts";

/** Longest takeResponse wait the API accepts. */
export const MAX_RESPONSE_WAIT_MS = 60_000;

/** Ends a caller's wait: with the answer handed to it, or with none (look for an unread one, or wait on). */
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
  record: RunRecord;
  log: EventLog;
  waiters: OutputWaiters;
  runs: { readonly isShutdown: boolean };
};

/** Pops the next final answer, waiting up to `waitMs` (capped) for one; null when none came. */
export async function takeResponse(
  { record, log, waiters, runs }: Outbox,
  waitMs: number,
): Promise<SessionResult<{ message: AssistantMessage | null }>> {
  const deadline = Date.now() + Math.min(Math.max(0, waitMs), MAX_RESPONSE_WAIT_MS);
  for (;;) {
    const message = record.takeAnswer((seq) => log.answerAt(seq));
    if (message) return ok({ message });
    const left = deadline - Date.now();
    if (left <= 0 || runs.isShutdown) return ok({ message: null });
    const handed = await waiters.wait(left);
    if (handed) return ok({ message: handed });
  }
}
