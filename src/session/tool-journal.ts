/**
 * The durable ToolCallJournal: how far each tool call of a run got (started → executing → ended, with
 * its result), keyed by run and call id (the model chooses ids, and may reuse one in a later run). Written
 * from the event sink and from the pipeline's markExecuting, read by a resumed run so that no call is
 * silently run twice. A run started in this isolate wrote every row it has, so lookups are answered from
 * memory; a resumed run reads its earlier attempt's rows once. Rows go through the write buffer. A call
 * that must not run twice has its `executing` row (and everything queued before it) written before
 * markExecuting returns, so the row is stored before the tool's first output can leave (the output gate
 * holds it until the commit). An idempotent call is run again after a restart whatever its row says, so
 * its row waits for the buffer's next flush and no commit lands between the model's reply and the next
 * request because of it. A call's `ended` row matters only until its result message is stored: when that
 * message is queued before the row was written, the row is dropped (a call with a stored result is never
 * looked up again); likewise a `started` row still queued is replaced by the call's `executing` row.
 * Storing a runEnd deletes every journal row (a trigger, session-schema.ts): the journal is bounded by one run.
 */
import { fitJson, type AgentToolCall, type AgentToolResult, type ToolCallJournal, type ToolCallJournalEntry } from "../core/index.ts";
import type { BufferedTable, WriteBuffer } from "./write-buffer.ts";

export const JOURNAL: BufferedTable = {
  name: "tool_call_journal",
  columns: ["run_id", "tool_call_id", "state", "json"],
  onConflict: "ON CONFLICT (run_id, tool_call_id) DO UPDATE SET state = excluded.state, json = excluded.json",
};

type Row = { tool_call_id: string; state: string; json: string | null };

export class SqlToolJournal implements ToolCallJournal {
  private readonly entries = new Map<string, ToolCallJournalEntry>();
  /** `started` rows queued, by call id: the call's `executing` row makes its still-unwritten one redundant. */
  private readonly startedRows = new Map<string, SqlStorageValue[]>();
  /** `ended` rows queued and not yet known to be redundant, by call id (one per call of the batch in progress). */
  private readonly endedRows = new Map<string, SqlStorageValue[]>();

  /** `isIdempotent` tells, by tool name, whether a call may run again after a restart (AgentTool.idempotent). */
  constructor(
    sql: SqlStorage,
    private readonly buffer: WriteBuffer,
    private readonly runId: string,
    resumed: boolean,
    private readonly isIdempotent: (toolName: string) => boolean = () => false,
  ) {
    if (!resumed) return;
    buffer.flush();
    for (const row of sql.exec<Row>(`SELECT tool_call_id, state, json FROM tool_call_journal WHERE run_id = ?`, runId)) {
      this.entries.set(row.tool_call_id, toEntry(row));
    }
  }

  lookup(toolCallId: string): ToolCallJournalEntry | undefined {
    return this.entries.get(toolCallId);
  }

  markStarted(toolCallId: string): void {
    // Never moves a call back: a call known in any state stays as it is.
    if (this.entries.has(toolCallId)) return;
    this.entries.set(toolCallId, { state: "started" });
    const row = [this.runId, toolCallId, "started", null];
    this.buffer.add(JOURNAL, row);
    this.startedRows.set(toolCallId, row);
  }

  markExecuting(toolCall: AgentToolCall): void {
    const started = this.startedRows.get(toolCall.id);
    if (started) {
      this.startedRows.delete(toolCall.id);
      this.buffer.cancel(JOURNAL, started);
    }
    if (this.entries.get(toolCall.id)?.state !== "ended") {
      this.entries.set(toolCall.id, { state: "executing" });
      this.buffer.add(JOURNAL, [this.runId, toolCall.id, "executing", null]);
    }
    // At-most-once across restarts: this row (and everything queued before it) is written before the tool runs.
    if (!this.isIdempotent(toolCall.name)) this.buffer.flush();
  }

  markEnded(toolCallId: string, result: AgentToolResult, isError: boolean): void {
    this.startedRows.delete(toolCallId);
    this.entries.set(toolCallId, { state: "ended", result, isError });
    const row = [this.runId, toolCallId, "ended", fitJson({ result, isError })];
    this.buffer.add(JOURNAL, row);
    this.endedRows.set(toolCallId, row);
  }

  /** The call's result message is queued in the same write buffer: its `ended` row, if still unwritten, is redundant. */
  resultQueued(toolCallId: string): void {
    const row = this.endedRows.get(toolCallId);
    if (!row) return;
    this.endedRows.delete(toolCallId);
    this.buffer.cancel(JOURNAL, row);
  }
}

function toEntry(row: Row): ToolCallJournalEntry {
  if (row.state === "ended" && row.json) {
    const { result, isError } = JSON.parse(row.json) as { result: AgentToolResult; isError: boolean };
    return { state: "ended", result, isError };
  }
  return { state: row.state === "executing" ? "executing" : "started" };
}
