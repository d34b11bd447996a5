/**
 * The durable ToolCallJournal: how far each tool call of a run got (started → executing → ended, with its
 * result), keyed by run and call id (the model chooses ids, and may reuse one in a later run). The core
 * calls it at every transition; a resumed run reads its earlier attempt's rows once, so no call silently
 * runs twice. Each transition is one plain statement, waiting with the step's other writes (step-writes.ts);
 * an `executing` row is stored (with all queued before it) before the tool runs, so the output gate holds
 * the tool's first output until it is committed. An idempotent call is resumed from `started` exactly as
 * from `executing` (prepared and run again), so its `executing` row is not written. The run driver clears
 * the journal when its run ends: it never holds more than one run's calls.
 */
import { fitJson, type AgentToolCall, type AgentToolResult, type ToolCallJournal, type ToolCallJournalEntry } from "../../core/index.ts";
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
    for (const row of sql.exec<Row>(`SELECT tool_call_id, state, json FROM tool_call_journal WHERE run_id = ?`, runId)) {
      this.entries.set(row.tool_call_id, toEntry(row));
    }
  }

  lookup(toolCallId: string): ToolCallJournalEntry | undefined {
    return this.entries.get(toolCallId);
  }

  markStarted(toolCall: AgentToolCall): void {
    // Never moves a call back: a call known in any state stays as it is.
    if (this.entries.has(toolCall.id)) return;
    this.entries.set(toolCall.id, { state: "started" });
    this.writes.exec(UPSERT, [this.runId, toolCall.id, "started", null]);
  }

  markExecuting(toolCall: AgentToolCall): void {
    if (this.entries.get(toolCall.id)?.state === "ended") return;
    this.entries.set(toolCall.id, { state: "executing" });
    if (this.isIdempotent(toolCall.name)) return;
    this.writes.exec(UPSERT, [this.runId, toolCall.id, "executing", null]);
    // At most once across restarts: the row is stored before the tool runs.
    this.writes.flush();
  }

  markEnded(toolCall: AgentToolCall, result: AgentToolResult, isError: boolean): void {
    this.entries.set(toolCall.id, { state: "ended", result, isError });
    this.writes.exec(UPSERT, [this.runId, toolCall.id, "ended", fitJson({ result, isError })]);
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
