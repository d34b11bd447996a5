/**
 * The durable ToolCallJournal: how far each tool call of a run got (started → executing → ended, with its
 * result), keyed by run and call id (the model chooses ids, and may reuse one in a later run). The core
 * calls it at every transition; a resumed run reads its earlier attempt's transitions once, so no call
 * silently runs twice. Two of the three are stored already, as the run's toolExecStart and toolExecEnd
 * events (the event is queued before the transition, in the same step writes), so a resumed run reads
 * them from the event log and only `executing` has a row of its own: stored (with all queued before it)
 * before the tool runs, so the output gate holds the tool's first output until it is committed. An
 * idempotent call is resumed from `started` exactly as from `executing` (prepared and run again), so its
 * `executing` row is not written: a step of idempotent tools writes no journal row at all (rows written
 * are billed). The run driver clears the table when its run ends: it never holds more than one run's calls.
 */
import type { AgentToolCall, AgentToolResult, ToolCallJournal, ToolCallJournalEntry } from "../../core/index.ts";
import { runEvents } from "../events/event-log.ts";
import type { StepWrites } from "./step-writes.ts";

type Row = { tool_call_id: string; state: string; json: string | null };

const UPSERT =
  `INSERT INTO tool_call_journal (run_id, tool_call_id, state, json) VALUES (?, ?, ?, ?) ` +
  `ON CONFLICT (run_id, tool_call_id) DO UPDATE SET state = excluded.state, json = excluded.json`;

export class SqlToolJournal implements ToolCallJournal {
  /** A run started in this isolate wrote every row it has, so lookups are answered from memory. */
  private readonly entries = new Map<string, ToolCallJournalEntry>();

  /** `isIdempotent` tells, by tool name, whether a call may run again after a restart (AgentTool.idempotent). */
  constructor(
    sql: SqlStorage,
    private readonly writes: StepWrites,
    private readonly runId: string,
    resumed: boolean,
    private readonly isIdempotent: (toolName: string) => boolean = () => false,
  ) {
    if (!resumed) return;
    // The run's own events, in order: a call's toolExecEnd comes after its toolExecStart.
    for (const row of runEvents(sql, runId, ["toolExecStart", "toolExecEnd"])) {
      const event = JSON.parse(row.json) as { toolCallId: string; result?: AgentToolResult; isError?: boolean };
      this.entries.set(
        event.toolCallId,
        row.type === "toolExecEnd" && event.result
          ? { state: "ended", result: event.result, isError: event.isError === true }
          : { state: "started" },
      );
    }
    // Rows: `executing` (and, from versions that stored every transition, `started` and `ended`).
    for (const row of sql.exec<Row>(`SELECT tool_call_id, state, json FROM tool_call_journal WHERE run_id = ?`, runId)) {
      if (this.entries.get(row.tool_call_id)?.state !== "ended") this.entries.set(row.tool_call_id, toEntry(row));
    }
  }

  lookup(toolCallId: string): ToolCallJournalEntry | undefined {
    return this.entries.get(toolCallId);
  }

  /** Stored as the call's toolExecStart event, queued just before. */
  markStarted(toolCall: AgentToolCall): void {
    // Never moves a call back: a call known in any state stays as it is.
    if (this.entries.has(toolCall.id)) return;
    this.entries.set(toolCall.id, { state: "started" });
  }

  markExecuting(toolCall: AgentToolCall): void {
    if (this.entries.get(toolCall.id)?.state === "ended") return;
    this.entries.set(toolCall.id, { state: "executing" });
    if (this.isIdempotent(toolCall.name)) return;
    this.writes.exec(UPSERT, [this.runId, toolCall.id, "executing", null]);
    // At most once across restarts: the row is stored before the tool runs.
    this.writes.flush();
  }

  /** Stored as the call's toolExecEnd event (its result and isError), queued just before. */
  markEnded(toolCall: AgentToolCall, result: AgentToolResult, isError: boolean): void {
    this.entries.set(toolCall.id, { state: "ended", result, isError });
  }

  /** The run is over: no call of it is ever looked up again (rows an interrupted clear left go too). */
  clear(): void {
    this.entries.clear();
    this.writes.exec(`DELETE FROM tool_call_journal`, []);
  }
}

function toEntry(row: Row): ToolCallJournalEntry {
  if (row.state === "ended" && row.json) {
    const { result, isError } = JSON.parse(row.json) as { result: AgentToolResult; isError: boolean };
    return { state: "ended", result, isError };
  }
  return { state: row.state === "executing" ? "executing" : "started" };
}
