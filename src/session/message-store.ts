/**
 * The owner of the `messages` table: the session's full history, appended one message at a time (never
 * rewritten, so a step's storage cost does not grow with history). Read whole once when the session
 * loads; the loop keeps its in-memory copy and appends here through onMessage.
 */
import { fitJson, type AgentMessage } from "../core/index.ts";

export class MessageStore {
  constructor(private readonly sql: SqlStorage) {}

  /** Every stored message, oldest first. */
  all(): AgentMessage[] {
    return this.sql
      .exec<{ json: string }>(`SELECT json FROM messages ORDER BY seq`)
      .toArray()
      .map((row) => JSON.parse(row.json) as AgentMessage);
  }

  /** The seq of the newest stored message (0 when none): where a run's own messages begin. */
  lastSeq(): number {
    return this.sql.exec<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM messages`).one().seq ?? 0;
  }

  append(message: AgentMessage): void {
    this.sql.exec(`INSERT INTO messages (json) VALUES (?)`, fitJson(message));
  }
}
