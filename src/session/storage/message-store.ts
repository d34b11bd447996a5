/**
 * The owner of the `messages` table: the session's full history, appended one message at a time (never
 * rewritten, so a step's storage cost does not grow with history). Only the newest window is read into
 * memory, when a run first needs it (memory-window.ts); clients page through the rest (`page`). Each row's
 * `seq` is the message's position in the history and the cursor of the pagination API. The run driver is
 * its only writer (`append`, one row per message, waiting with the step's other writes: step-writes.ts);
 * reads see stored messages.
 */
import { fitJson, type AgentMessage } from "../../core/index.ts";
import type { MessagePage } from "../../wire/snapshot.ts";
import { windowStart } from "../run/memory-window.ts";
import type { StepWrites } from "../run/step-writes.ts";

/** Rows read per query while loading the window backwards. */
const WINDOW_READ_ROWS = 256;
/** Most messages one page may hold (GET /v1/sessions/:id/messages?limit=). */
export const MAX_PAGE_LIMIT = 500;
/**
 * Most stored JSON one page carries: a page of image messages stops early with a cursor, so an answer
 * stays far below RPC's 32 MiB limit and the object's memory holds one page at a time. A page always holds
 * at least one message (a row is at most 2 MB).
 */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

type Row = { seq: number; json: string };

export class MessageStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly writes: StepWrites,
  ) {}

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
      const rows = this.sql
        .exec<Row>(`SELECT seq, json FROM messages WHERE seq < ? ORDER BY seq DESC LIMIT ?`, before, WINDOW_READ_ROWS)
        .toArray();
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
      if (kept >= 4 * maxChars)
        return loaded.slice(
          Math.max(
            0,
            loaded.findIndex((m) => m.role !== "toolResult"),
          ),
        );
      before = rows[0]!.seq;
    }
  }

  /**
   * Up to `limit` messages stored before seq `before` (default: the newest), oldest first, and no more than
   * `maxBytes` of stored JSON; `before` in the answer is the cursor to the page before it (null at the start).
   */
  page(before: number | undefined, limit: number, maxBytes = MAX_PAGE_BYTES): MessagePage {
    // Rows come newest first from a lazy cursor: reading stops at the budget, so no more than a page is read.
    const cursor = this.sql.exec<Row>(
      `SELECT seq, json FROM messages WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
      before ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    );
    const kept: Row[] = [];
    let bytes = 0;
    let more = false;
    for (const row of cursor) {
      if (kept.length === limit || (kept.length > 0 && bytes + row.json.length > maxBytes)) {
        more = true;
        break;
      }
      kept.push(row);
      bytes += row.json.length;
    }
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

  /** Queues the message at the end of the history (bounded and JSON-safe: what is cut carries a note). */
  append(message: AgentMessage): void {
    this.writes.exec(`INSERT INTO messages (json) VALUES (?)`, [fitJson(message)]);
  }
}
