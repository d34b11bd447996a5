/**
 * The owner of the `messages` table: the session's full history, appended one message at a time (never
 * rewritten, so a step's storage cost does not grow with history). Only the newest window is read into
 * memory, when a run first needs it (memory-window.ts); clients page through the rest (`page`). Each row's
 * `seq` is the message's position in the history and the cursor of the pagination API. The run driver is
 * its only writer (`append`, one row per message).
 */
import { fitJson, type AgentMessage } from "../core/index.ts";
import type { MessagePage } from "../wire/snapshot.ts";
import { windowStart } from "./memory-window.ts";

/** Rows read per query while loading the window backwards. */
const WINDOW_READ_ROWS = 256;
/** Most messages one page may hold (GET /v1/sessions/:id/messages?limit=). */
export const MAX_PAGE_LIMIT = 500;

type Row = { seq: number; json: string };

export class MessageStore {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * The newest messages covering `maxChars` of stored JSON, back to a turn's start, oldest first. Reads
   * backwards in batches and stops once the window's start is among the rows read, so waking a session
   * reads a bounded number of rows whatever its age.
   */
  window(maxChars: number): AgentMessage[] {
    const sizes = new Map<AgentMessage, number>();
    const sizeOf = (m: AgentMessage) => sizes.get(m)!;
    let loaded: AgentMessage[] = [];
    let kept = 0;
    for (let before = Number.MAX_SAFE_INTEGER; ; ) {
      const rows = this.sql.exec<Row>(`SELECT seq, json FROM messages WHERE seq < ? ORDER BY seq DESC LIMIT ?`, before, WINDOW_READ_ROWS).toArray();
      const batch = rows.reverse().map((row) => {
        const message = JSON.parse(row.json) as AgentMessage;
        sizes.set(message, row.json.length);
        kept += row.json.length;
        return message;
      });
      loaded = batch.concat(loaded);
      if (rows.length < WINDOW_READ_ROWS) return loaded.slice(windowStart(loaded, maxChars, sizeOf));
      const start = kept >= maxChars ? windowStart(loaded, maxChars, sizeOf) : 0;
      if (start > 0) return loaded.slice(start);
      // A turn with no message to start at within twice the window: keep what was read, minus results
      // whose call lies before it (a tool result must never be sent without its call).
      if (kept >= 4 * maxChars) return loaded.slice(Math.max(0, loaded.findIndex((m) => m.role !== "toolResult")));
      before = rows[0]!.seq;
    }
  }

  /** Up to `limit` messages stored before seq `before` (default: the newest), oldest first. */
  page(before: number | undefined, limit: number): MessagePage {
    const rows = this.sql
      .exec<Row>(`SELECT seq, json FROM messages WHERE seq < ? ORDER BY seq DESC LIMIT ?`, before ?? Number.MAX_SAFE_INTEGER, limit + 1)
      .toArray();
    const more = rows.length > limit;
    const kept = more ? rows.slice(0, limit) : rows;
    kept.reverse();
    return { messages: kept.map((r) => JSON.parse(r.json) as AgentMessage), before: more ? kept[0]!.seq : null };
  }

  /** The messages stored after seq `after`, oldest first (a run's own, from its start: bounded by its steps). */
  after(after: number): AgentMessage[] {
    return this.sql
      .exec<Row>(`SELECT seq, json FROM messages WHERE seq > ? ORDER BY seq`, after)
      .toArray()
      .map((r) => JSON.parse(r.json) as AgentMessage);
  }

  /** Whether any message is stored (the window may be empty only when the history is). */
  isEmpty(): boolean {
    return this.sql.exec<{ seq: number }>(`SELECT seq FROM messages LIMIT 1`).toArray().length === 0;
  }

  /** The seq of the newest stored message (0 when none): where a run's own messages begin. */
  lastSeq(): number {
    return this.sql.exec<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM messages`).one().seq ?? 0;
  }

  /** Stores the message at the end of the history (bounded and JSON-safe: what is cut carries a note). */
  append(message: AgentMessage): void {
    this.sql.exec(`INSERT INTO messages (json) VALUES (?)`, fitJson(message));
  }
}
