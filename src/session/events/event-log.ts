/**
 * The session's append-only event log. Each event gets the next per-session sequence number, which is
 * also its SSE id, so Last-Event-ID replay is `readAfter(seq)`. Old events are trimmed to a bounded
 * window; `oldestSeq` tells a reconnecting client whether what it missed is still here. The event sink
 * is its only writer (`append`); `lastSeq` is the newest stored one. The event feed reads it for replays.
 * The events one commit stores (step-writes.ts) share a row: rows written are the dearest unit of a turn's
 * bill (docs/benchmarks.md "What a turn costs"), and a step's five events cost one row instead of five.
 * A row holds events `seq`…`last_seq` in order, `types` their types (space-separated, with a space on
 * each side, so `LIKE '% type %'` finds a row holding one), `json` their JSON texts joined by newlines
 * (JSON text never holds a raw newline), so each event's stored text is read back as it was written.
 */
import { fitJson, MAX_ROW_BYTES, type AgentEvent, type AssistantMessage } from "../../core/index.ts";
import type { StampedEvent } from "../../wire/events.ts";
import type { Statement, StepWrites } from "../run/step-writes.ts";

export type StoredEvent = { seq: number; type: string; json: string };

/** Stored JSON one replay page reads: a log of image messages is replayed a page at a time. */
export const REPLAY_PAGE_BYTES = 1024 * 1024;

/** Events kept per session; older ones are trimmed in batches so trimming costs nothing per append. */
export const EVENT_RETENTION = 5_000;
const TRIM_EVERY = 500;

type EventRow = { seq: number; types: string; json: string };

/** The events of one stored row, oldest first. */
function eventsOf(row: EventRow): StoredEvent[] {
  const types = row.types.trim().split(" ");
  const texts = row.json.split("\n");
  return types.map((type, i) => ({ seq: row.seq + i, type, json: texts[i]! }));
}

/** A field of a stored event (its JSON parsed only when a lookup needs it). */
const fieldOf = (event: StoredEvent, name: "runId" | "toolCallId"): unknown => (JSON.parse(event.json) as Record<string, unknown>)[name];

/** Rows holding an event of one of `types`, newest first (a lazy cursor: reading stops when the caller does). */
function rowsWithType(sql: SqlStorage, types: readonly string[], where = "", ...values: SqlStorageValue[]): Iterable<EventRow> {
  const any = types.map(() => "types LIKE ?").join(" OR ");
  return sql.exec<EventRow>(
    `SELECT seq, types, json FROM events WHERE (${any})${where} ORDER BY seq DESC`,
    ...types.map((t) => `% ${t} %`),
    ...values,
  );
}

/** The stored events of run `runId` among `types`, oldest first (the tool journal's view of a run). */
export function runEvents(sql: SqlStorage, runId: string, types: readonly string[]): StoredEvent[] {
  const newestFirst: StoredEvent[][] = [];
  for (const row of rowsWithType(sql, types)) {
    newestFirst.push(eventsOf(row).filter((e) => types.includes(e.type) && fieldOf(e, "runId") === runId));
  }
  return newestFirst.reverse().flat();
}

export class EventLog {
  private nextSeq: number;
  private storedSeq: number;
  /** Events queued for the next commit, with the work that waits for them. */
  private pending: StoredEvent[] = [];

  constructor(
    private readonly sql: SqlStorage,
    private readonly writes: StepWrites,
    readonly sessionId: string,
    private readonly retention = EVENT_RETENTION,
  ) {
    const row = sql.exec<{ seq: number | null }>(`SELECT MAX(last_seq) AS seq FROM events`).one();
    this.storedSeq = row.seq ?? 0;
    this.nextSeq = this.storedSeq + 1;
    writes.gather(() => this.takeRows());
  }

  /** The newest stored event's seq: what a snapshot covers, and where a stream opened from it goes on. */
  get lastSeq(): number {
    return this.storedSeq;
  }

  oldestSeq(): number {
    const row = this.sql.exec<{ seq: number | null }>(`SELECT MIN(seq) AS seq FROM events`).one();
    return row.seq ?? this.nextSeq;
  }

  /**
   * Queues the event with the next sequence number (returned); `stored` gets it stamped, with its JSON
   * text (serialized once), once its row is written.
   */
  append(event: AgentEvent, runId: string | undefined, ts: number, stored: (stamped: StampedEvent, json: string) => void): number {
    const stamped = { ...event, seq: this.nextSeq++, sessionId: this.sessionId, ts, ...(runId ? { runId } : {}) } as StampedEvent;
    // Bounded and JSON-safe: an event that cannot be stored whole is cut (with a note), never refused.
    const json = fitJson(stamped);
    this.pending.push({ seq: stamped.seq, type: stamped.type, json });
    this.writes.after(() => {
      this.storedSeq = stamped.seq;
      stored(stamped, json);
    });
    // A trim lost to a restart is made up by the next one (each deletes everything older than the window).
    if (stamped.seq % TRIM_EVERY === 0) this.trim(stamped.seq - this.retention);
    return stamped.seq;
  }

  /** A write failed: the events queued since the last stored one were never stored, and their seqs are free again. */
  discardUnstored(): void {
    this.pending = [];
    this.nextSeq = this.storedSeq + 1;
  }

  /** The commit is being made: the queued events as rows, as few as fit (a row stays under MAX_ROW_BYTES). */
  private takeRows(): Statement[] {
    const rows: Statement[] = [];
    let batch: StoredEvent[] = [];
    let bytes = 0;
    const close = () => {
      if (batch.length === 0) return;
      const types = ` ${batch.map((e) => e.type).join(" ")} `;
      const json = batch.map((e) => e.json).join("\n");
      rows.push({
        sql: `INSERT INTO events (seq, last_seq, types, json) VALUES (?, ?, ?, ?)`,
        values: [batch[0]!.seq, batch.at(-1)!.seq, types, json],
      });
      batch = [];
      bytes = 0;
    };
    for (const event of this.pending) {
      // At most three bytes of UTF-8 a character: a bound that needs no encoding (one event alone always fits).
      const size = event.json.length * 3 + 1;
      if (bytes + size > MAX_ROW_BYTES) close();
      batch.push(event);
      bytes += size;
    }
    close();
    this.pending = [];
    return rows;
  }

  private trim(throughSeq: number): void {
    try {
      this.sql.exec(`DELETE FROM events WHERE last_seq <= ?`, throughSeq);
    } catch (err) {
      // No caller to hand the fault to (and the next trim covers these rows): storing never fails a run.
      console.error(JSON.stringify({ event: "eventTrimFailed", message: err instanceof Error ? err.message : String(err) }));
    }
  }

  /**
   * The seq just before run `runId`'s first event (its runStart), for a stream rebuilt from that run's
   * start; the oldest kept seq minus one when the log no longer holds it.
   */
  beforeRun(runId: string): number {
    for (const row of rowsWithType(this.sql, ["runStart"])) {
      const start = eventsOf(row).find((e) => e.type === "runStart" && fieldOf(e, "runId") === runId);
      if (start) return start.seq - 1;
    }
    return this.oldestSeq() - 1;
  }

  /**
   * The answer of the runEnd stored as event `seq` (takeResponse's unread answers, run-record.ts): one row
   * read by its key. Undefined when the log no longer holds it (trimmed) or `seq` is not a runEnd.
   */
  answerAt(seq: number): AssistantMessage | undefined {
    const row = this.sql.exec<EventRow>(`SELECT seq, types, json FROM events WHERE seq <= ? ORDER BY seq DESC LIMIT 1`, seq).toArray()[0];
    const event = row && eventsOf(row).find((e) => e.seq === seq);
    if (event?.type !== "runEnd") return undefined;
    const response = (JSON.parse(event.json) as { response?: AssistantMessage }).response;
    return response?.role === "assistant" ? response : undefined;
  }

  /** True when the newest message event is a messageStart: an answer was streaming and never ended. */
  hasOpenMessage(): boolean {
    const types = ["messageStart", "messageEnd", "messageAbandoned", "runEnd"];
    for (const row of rowsWithType(this.sql, types)) {
      return eventsOf(row).findLast((e) => types.includes(e.type))?.type === "messageStart";
    }
    return false;
  }

  /** The newest event of `type` (for a tool call, the newest of that call), as stored; undefined when none. */
  newest(type: string, toolCallId?: string): StoredEvent | undefined {
    for (const row of rowsWithType(this.sql, [type])) {
      const found = eventsOf(row).findLast((e) => e.type === type && (toolCallId === undefined || fieldOf(e, "toolCallId") === toolCallId));
      if (found) return found;
    }
    return undefined;
  }

  /**
   * A page of the events with seq > `afterSeq`, oldest first, as their stored JSON text: at most
   * `maxBytes` of it (at least one event), so a replay reads the log one bounded page at a time.
   * `more` says events after the page remain.
   */
  readAfter(afterSeq: number, maxBytes = REPLAY_PAGE_BYTES): { events: StoredEvent[]; more: boolean } {
    const events: StoredEvent[] = [];
    let bytes = 0;
    // A lazy cursor from the row holding `afterSeq` + 1: reading stops at the budget.
    const rows = this.sql.exec<EventRow>(
      `SELECT seq, types, json FROM events WHERE seq >= COALESCE((SELECT MAX(seq) FROM events WHERE seq <= ?), 0) ORDER BY seq`,
      afterSeq + 1,
    );
    for (const row of rows) {
      for (const event of eventsOf(row)) {
        if (event.seq <= afterSeq) continue;
        if (events.length > 0 && bytes + event.json.length > maxBytes) return { events, more: true };
        events.push(event);
        bytes += event.json.length;
      }
    }
    return { events, more: false };
  }
}
