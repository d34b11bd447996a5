/**
 * The spec's channels as SQLite-backed queues: input (16), follow-up (32) and output (16).
 * A full input or follow-up queue refuses (the caller answers 429); nothing is dropped. The output queue
 * never refuses and never blocks a run: it keeps the 16 most recent unread answers, a 17th evicts the
 * oldest (which stays in history and the event log). Draining takes follow-ups first, then input.
 * The object is the table's only writer, so the number of pending user messages is kept in memory: the
 * loop's check at every step boundary costs no storage call when nothing is pending.
 */
import { fitJson, type AssistantMessage, type UserMessage } from "../core/index.ts";

export type QueueKind = "input" | "followUp" | "output";

export const QUEUE_CAPACITY: Readonly<Record<QueueKind, number>> = { input: 16, followUp: 32, output: 16 };

export type QueueDepths = Record<QueueKind, number>;

export class SessionQueues {
  /** Pending input + follow-up messages; read from storage on first use. */
  private pendingUser: number | undefined;

  constructor(private readonly sql: SqlStorage) {}

  depth(kind: QueueKind): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM queue WHERE kind = ?`, kind).one().n;
  }

  depths(): QueueDepths {
    const out: QueueDepths = { input: 0, followUp: 0, output: 0 };
    for (const row of this.sql.exec<{ kind: QueueKind; n: number }>(`SELECT kind, COUNT(*) AS n FROM queue GROUP BY kind`)) {
      out[row.kind] = row.n;
    }
    return out;
  }

  isFull(kind: QueueKind): boolean {
    return this.depth(kind) >= QUEUE_CAPACITY[kind];
  }

  /** Returns false (and stores nothing) when the queue is full. */
  offer(kind: QueueKind, messageId: string, message: UserMessage | AssistantMessage): boolean {
    if (this.isFull(kind)) return false;
    this.sql.exec(`INSERT INTO queue (kind, message_id, json) VALUES (?, ?, ?)`, kind, messageId, fitJson(message));
    if (kind !== "output" && this.pendingUser !== undefined) this.pendingUser++;
    return true;
  }

  /** Removes and returns every pending user message: follow-ups first, then input. */
  drainPending(): UserMessage[] {
    if (!this.hasPendingInput()) return [];
    this.pendingUser = 0;
    const rows = this.sql
      .exec<{ json: string }>(
        `SELECT json FROM queue WHERE kind IN ('followUp', 'input') ORDER BY CASE kind WHEN 'followUp' THEN 0 ELSE 1 END, id`,
      )
      .toArray();
    if (rows.length === 0) return [];
    this.sql.exec(`DELETE FROM queue WHERE kind IN ('followUp', 'input')`);
    return rows.map((r) => JSON.parse(r.json) as UserMessage);
  }

  hasPendingInput(): boolean {
    this.pendingUser ??= this.depth("input") + this.depth("followUp");
    return this.pendingUser > 0;
  }

  /** Pops the oldest final response (takeResponse). */
  takeOutput(): AssistantMessage | undefined {
    const row = this.sql.exec<{ id: number; json: string }>(`SELECT id, json FROM queue WHERE kind = 'output' ORDER BY id LIMIT 1`).toArray()[0];
    if (!row) return undefined;
    this.sql.exec(`DELETE FROM queue WHERE id = ?`, row.id);
    return JSON.parse(row.json) as AssistantMessage;
  }

  /** Adds a run's answer; returns how many of the oldest unread answers it evicted (0 or more). */
  pushOutput(messageId: string, message: AssistantMessage): number {
    this.sql.exec(`INSERT INTO queue (kind, message_id, json) VALUES ('output', ?, ?)`, messageId, fitJson(message));
    const excess = this.depth("output") - QUEUE_CAPACITY.output;
    if (excess <= 0) return 0;
    this.sql.exec(`DELETE FROM queue WHERE id IN (SELECT id FROM queue WHERE kind = 'output' ORDER BY id LIMIT ?)`, excess);
    return excess;
  }
}
