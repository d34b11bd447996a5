/**
 * The session's append-only event log. Each event gets the next per-session sequence number, which is
 * also its SSE id, so Last-Event-ID replay is `readAfter(seq)`. Old events are trimmed to a bounded
 * window; `oldestSeq` tells a reconnecting client whether what it missed is still here. The event sink
 * is its only writer (`append`); its rows wait with the step's other writes (step-writes.ts), and
 * `lastSeq` is the newest stored one. The event feed reads it for replays.
 */
import { fitJson, type AgentEvent } from "../../core/index.ts";
import type { StampedEvent } from "../../wire/events.ts";
import type { StepWrites } from "../run/step-writes.ts";

export type StoredEvent = { seq: number; type: string; json: string };

/** Stored JSON one replay page reads: a log of image messages is replayed a page at a time. */
export const REPLAY_PAGE_BYTES = 1024 * 1024;

/** Events kept per session; older ones are trimmed in batches so trimming costs nothing per append. */
export const EVENT_RETENTION = 5_000;
const TRIM_EVERY = 500;

export class EventLog {
  private nextSeq: number;
  private storedSeq: number;

  constructor(
    private readonly sql: SqlStorage,
    private readonly writes: StepWrites,
    readonly sessionId: string,
    private readonly retention = EVENT_RETENTION,
  ) {
    const row = sql.exec<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM events`).one();
    this.storedSeq = row.seq ?? 0;
    this.nextSeq = this.storedSeq + 1;
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
   * Queues the event with the next sequence number; `stored` gets it stamped, with its JSON text
   * (serialized once), once its row is written.
   */
  append(event: AgentEvent, runId: string | undefined, ts: number, stored: (stamped: StampedEvent, json: string) => void): void {
    const stamped = { ...event, seq: this.nextSeq++, sessionId: this.sessionId, ts, ...(runId ? { runId } : {}) } as StampedEvent;
    // Bounded and JSON-safe: an event that cannot be stored whole is cut (with a note), never refused.
    const json = fitJson(stamped);
    this.writes.exec(`INSERT INTO events (seq, type, json) VALUES (?, ?, ?)`, [stamped.seq, stamped.type, json], () => {
      this.storedSeq = stamped.seq;
      stored(stamped, json);
    });
    // A trim lost to a restart is made up by the next one (each deletes everything older than the window).
    if (stamped.seq % TRIM_EVERY === 0) this.trim(stamped.seq - this.retention);
  }

  /** A write failed: the events queued since the last stored one were never stored, and their seqs are free again. */
  discardUnstored(): void {
    this.nextSeq = this.storedSeq + 1;
  }

  private trim(throughSeq: number): void {
    try {
      this.sql.exec(`DELETE FROM events WHERE seq <= ?`, throughSeq);
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
    const row = this.sql
      .exec<{ seq: number }>(
        `SELECT seq FROM events WHERE type = 'runStart' AND json_extract(json, '$.runId') = ? ORDER BY seq DESC LIMIT 1`,
        runId,
      )
      .toArray()[0];
    return (row?.seq ?? this.oldestSeq()) - 1;
  }

  /** True when the newest message event is a messageStart: an answer was streaming and never ended. */
  hasOpenMessage(): boolean {
    const row = this.sql
      .exec<{ type: string }>(
        `SELECT type FROM events WHERE type IN ('messageStart', 'messageEnd', 'messageAbandoned', 'runEnd') ORDER BY seq DESC LIMIT 1`,
      )
      .toArray()[0];
    return row?.type === "messageStart";
  }

  /** The newest event of `type` (for a tool call, the newest of that call), as stored; undefined when none. */
  newest(type: string, toolCallId?: string): StoredEvent | undefined {
    const rows =
      toolCallId === undefined
        ? this.sql.exec<StoredEvent>(`SELECT seq, type, json FROM events WHERE type = ? ORDER BY seq DESC LIMIT 1`, type)
        : this.sql.exec<StoredEvent>(
            `SELECT seq, type, json FROM events WHERE type = ? AND json_extract(json, '$.toolCallId') = ? ORDER BY seq DESC LIMIT 1`,
            type,
            toolCallId,
          );
    return rows.toArray()[0];
  }

  /**
   * A page of the events with seq > `afterSeq`, oldest first, as their stored JSON text: at most
   * `maxBytes` of it (at least one event), so a replay reads the log one bounded page at a time.
   * `more` says events after the page remain.
   */
  readAfter(afterSeq: number, maxBytes = REPLAY_PAGE_BYTES): { events: StoredEvent[]; more: boolean } {
    const events: StoredEvent[] = [];
    let bytes = 0;
    // A lazy cursor: reading stops at the budget.
    for (const row of this.sql.exec<StoredEvent>(`SELECT seq, type, json FROM events WHERE seq > ? ORDER BY seq`, afterSeq)) {
      if (events.length > 0 && bytes + row.json.length > maxBytes) return { events, more: true };
      events.push(row);
      bytes += row.json.length;
    }
    return { events, more: false };
  }
}
