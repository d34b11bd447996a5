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
import {
  nestedCallKey,
  type AgentToolCall,
  type AgentToolResult,
  type ToolCallJournal,
  type ToolCallJournalEntry,
} from "../../core/index.ts";
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
      const event = JSON.parse(row.json) as StoredToolEvent;
      // A nested call's fingerprint (code mode) comes from its start: the end carries no arguments.
      const key = row.type === "toolExecStart" ? eventKey(event) : this.entries.get(event.toolCallId)?.key;
      const keyed = key === undefined ? {} : { key };
      this.entries.set(
        event.toolCallId,
        row.type === "toolExecEnd" && event.result
          ? { state: "ended", result: event.result, isError: event.isError === true, ...keyed }
          : { state: "started", ...keyed },
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
    this.entries.set(toolCall.id, { state: "started", ...keyed(toolCall) });
  }

  markExecuting(toolCall: AgentToolCall): void {
    if (this.entries.get(toolCall.id)?.state === "ended") return;
    const key = keyOf(toolCall);
    this.entries.set(toolCall.id, { state: "executing", ...keyed(toolCall) });
    if (this.isIdempotent(toolCall.name)) return;
    this.writes.exec(UPSERT, [this.runId, toolCall.id, "executing", key === undefined ? null : JSON.stringify({ key })]);
    // At most once across restarts: the row is stored before the tool runs.
    this.writes.flush();
  }

  /** Stored as the call's toolExecEnd event (its result and isError), queued just before. */
  markEnded(toolCall: AgentToolCall, result: AgentToolResult, isError: boolean): void {
    this.entries.set(toolCall.id, { state: "ended", result, isError, ...keyed(toolCall) });
  }

  /** The run is over: no call of it is ever looked up again (rows an interrupted clear left go too). */
  clear(): void {
    this.entries.clear();
    this.writes.exec(`DELETE FROM tool_call_journal`, []);
  }
}

/** A nested call (code mode) is stored with the fingerprint of its name and arguments; a model's call needs none. */
const keyOf = (toolCall: AgentToolCall): string | undefined =>
  toolCall.parentToolCallId === undefined ? undefined : nestedCallKey(toolCall.name, toolCall.arguments);
const keyed = (toolCall: AgentToolCall): { key?: string } => {
  const key = keyOf(toolCall);
  return key === undefined ? {} : { key };
};

type StoredToolEvent = {
  toolCallId: string;
  toolName?: string;
  arguments?: unknown;
  parentToolCallId?: string;
  result?: AgentToolResult;
  isError?: boolean;
};
/** The fingerprint of a nested call from its stored toolExecStart. */
const eventKey = (event: StoredToolEvent): string | undefined =>
  event.parentToolCallId === undefined || event.toolName === undefined ? undefined : nestedCallKey(event.toolName, event.arguments);

function toEntry(row: Row): ToolCallJournalEntry {
  const stored = row.json ? (JSON.parse(row.json) as { result?: AgentToolResult; isError?: boolean; key?: string }) : {};
  const key = typeof stored.key === "string" ? { key: stored.key } : {};
  if (row.state === "ended" && stored.result) return { state: "ended", result: stored.result, isError: stored.isError === true, ...key };
  return { state: row.state === "executing" ? "executing" : "started", ...key };
}
