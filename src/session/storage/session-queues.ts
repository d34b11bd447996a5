/**
 * The spec's input (16) and follow-up (32) channels as SQLite-backed queues. A full queue refuses (the
 * caller answers 429); nothing is dropped. Draining takes follow-ups first, then input. The output channel
 * (16) has no rows here: an unread answer is its runEnd event, and the run record keeps which ones are
 * unread (run-record.ts), so an answer costs no row of its own (schema step 13 moved the rows older
 * sessions had queued there).
 * The object is the table's only writer (and single-threaded), so each queue's depth is kept in memory,
 * counted once per wake: the loop's pending-input check at every step boundary, a capacity check and a
 * snapshot's depths cost no storage call, and taking or draining a queue that is empty reads nothing.
 */
import { fitJson, type UserMessage } from "../../core/index.ts";
import type { QueueDepths } from "../../wire/snapshot.ts";
import { UNREAD_ANSWERS } from "../run/run-record.ts";

export type QueueKind = "input" | "followUp";

/** The spec's channel capacities (the snapshot's `queueCapacity`); output's is the run record's. */
export const QUEUE_CAPACITY: Readonly<QueueDepths> = { input: 16, followUp: 32, output: UNREAD_ANSWERS };

type Depths = Record<QueueKind, number>;

export class SessionQueues {
  /** Rows per kind in the table; counted on first use, then kept in step with every write. */
  private counts: Depths | undefined;

  constructor(private readonly sql: SqlStorage) {}

  depth(kind: QueueKind): number {
    return this.depthsKnown()[kind];
  }

  depths(): Depths {
    return { ...this.depthsKnown() };
  }

  isFull(kind: QueueKind): boolean {
    return this.depth(kind) >= QUEUE_CAPACITY[kind];
  }

  /** Returns false (and stores nothing) when the queue is full. */
  offer(kind: QueueKind, messageId: string, message: UserMessage): boolean {
    if (this.isFull(kind)) return false;
    this.sql.exec(`INSERT INTO queue (kind, message_id, json) VALUES (?, ?, ?)`, kind, messageId, fitJson(message));
    this.depthsKnown()[kind]++;
    return true;
  }

  /**
   * Removes and returns every pending user message: follow-ups first, then input. The removal is handed
   * to `remove` (a run passes its step writes), so it commits together with the messages' storing: a
   * failed write leaves them queued, never lost.
   */
  drainPending(remove: (sql: string, values: SqlStorageValue[]) => void = (sql, values) => this.sql.exec(sql, ...values)): UserMessage[] {
    if (!this.hasPendingInput()) return [];
    const rows = this.sql
      .exec<{ id: number; kind: QueueKind; json: string }>(`SELECT id, kind, json FROM queue WHERE kind IN ('followUp', 'input')`)
      .toArray();
    if (rows.length === 0) return [];
    remove(`DELETE FROM queue WHERE kind IN ('followUp', 'input') AND id <= ?`, [Math.max(...rows.map((r) => r.id))]);
    const counts = this.depthsKnown();
    counts.followUp = 0;
    counts.input = 0;
    rows.sort((a, b) => (a.kind === b.kind ? a.id - b.id : a.kind === "followUp" ? -1 : 1));
    return rows.map((r) => JSON.parse(r.json) as UserMessage);
  }

  /**
   * Puts back input a run took from its record but never stored (it stopped before its first drain):
   * ahead of what is queued, since it was accepted first, and never refused, since it was accepted already.
   */
  restore(messageId: string, message: UserMessage): void {
    this.sql.exec(
      `INSERT INTO queue (id, kind, message_id, json) VALUES ((SELECT COALESCE(MIN(id), 1) - 1 FROM queue), 'input', ?, ?)`,
      messageId,
      fitJson(message),
    );
    this.depthsKnown().input++;
  }

  hasPendingInput(): boolean {
    const counts = this.depthsKnown();
    return counts.input + counts.followUp > 0;
  }

  private depthsKnown(): Depths {
    if (this.counts) return this.counts;
    const counts: Depths = { input: 0, followUp: 0 };
    for (const row of this.sql.exec<{ kind: QueueKind; n: number }>(
      `SELECT kind, COUNT(*) AS n FROM queue WHERE kind IN ('input', 'followUp') GROUP BY kind`,
    ))
      counts[row.kind] = row.n;
    this.counts = counts;
    return counts;
  }
}
