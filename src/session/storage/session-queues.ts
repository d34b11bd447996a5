/**
 * The spec's channels as SQLite-backed queues: input (16), follow-up (32) and output (16).
 * A full input or follow-up queue refuses (the caller answers 429); nothing is dropped. The output queue
 * never refuses and never blocks a run: it keeps the 16 most recent unread answers, a 17th evicts the
 * oldest (which stays in history and the event log). Draining takes follow-ups first, then input.
 * The object is the table's only writer (and single-threaded), so each queue's depth is kept in memory,
 * counted once per wake: the loop's pending-input check at every step boundary, a capacity check and a
 * snapshot's depths cost no storage call, and taking or draining a queue that is empty reads nothing.
 */
import { fitJson, type AssistantMessage, type UserMessage } from "../../core/index.ts";

export type QueueKind = "input" | "followUp" | "output";

export const QUEUE_CAPACITY: Readonly<Record<QueueKind, number>> = { input: 16, followUp: 32, output: 16 };

export type QueueDepths = Record<QueueKind, number>;

export class SessionQueues {
  /** Rows per kind in the table; counted on first use, then kept in step with every write. */
  private counts: QueueDepths | undefined;

  constructor(private readonly sql: SqlStorage) {}

  depth(kind: QueueKind): number {
    return this.depthsKnown()[kind];
  }

  depths(): QueueDepths {
    return { ...this.depthsKnown() };
  }

  isFull(kind: QueueKind): boolean {
    return this.depth(kind) >= QUEUE_CAPACITY[kind];
  }

  /** Returns false (and stores nothing) when the queue is full. */
  offer(kind: QueueKind, messageId: string, message: UserMessage | AssistantMessage): boolean {
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

  /** Pops the oldest final response (takeResponse). */
  takeOutput(): AssistantMessage | undefined {
    const counts = this.depthsKnown();
    if (counts.output === 0) return undefined;
    const row = this.sql
      .exec<{ json: string }>(
        `DELETE FROM queue WHERE id = (SELECT id FROM queue WHERE kind = 'output' ORDER BY id LIMIT 1) RETURNING json`,
      )
      .toArray()[0];
    if (!row) return undefined;
    counts.output--;
    return JSON.parse(row.json) as AssistantMessage;
  }

  /** Adds a run's answer; returns how many of the oldest unread answers it evicted (0 or more). */
  pushOutput(messageId: string, message: AssistantMessage): number {
    const counts = this.depthsKnown();
    this.sql.exec(`INSERT INTO queue (kind, message_id, json) VALUES ('output', ?, ?)`, messageId, fitJson(message));
    const excess = ++counts.output - QUEUE_CAPACITY.output;
    if (excess <= 0) return 0;
    this.sql.exec(`DELETE FROM queue WHERE id IN (SELECT id FROM queue WHERE kind = 'output' ORDER BY id LIMIT ?)`, excess);
    counts.output -= excess;
    return excess;
  }

  private depthsKnown(): QueueDepths {
    if (this.counts) return this.counts;
    const counts: QueueDepths = { input: 0, followUp: 0, output: 0 };
    for (const row of this.sql.exec<{ kind: QueueKind; n: number }>(`SELECT kind, COUNT(*) AS n FROM queue GROUP BY kind`))
      counts[row.kind] = row.n;
    this.counts = counts;
    return counts;
  }
}
