/**
 * The durable ToolCallJournal: how far each tool call of a run got (started → executing → ended, with
 * its result). Written from the event sink and from the pipeline's markExecuting, read by a resumed run
 * so that no call is silently run twice.
 */
import { fitJson, type AgentToolCall, type AgentToolResult, type ToolCallJournal, type ToolCallJournalEntry } from "../core/index.ts";

export class SqlToolJournal implements ToolCallJournal {
  constructor(
    private readonly sql: SqlStorage,
    private readonly runId: string,
  ) {}

  lookup(toolCallId: string): ToolCallJournalEntry | undefined {
    const row = this.sql
      .exec<{ state: string; json: string | null }>(`SELECT state, json FROM tool_journal WHERE tool_call_id = ?`, toolCallId)
      .toArray()[0];
    if (!row) return undefined;
    if (row.state === "ended" && row.json) {
      const { result, isError } = JSON.parse(row.json) as { result: AgentToolResult; isError: boolean };
      return { state: "ended", result, isError };
    }
    return { state: row.state === "executing" ? "executing" : "started" };
  }

  markStarted(toolCallId: string): void {
    this.sql.exec(
      `INSERT INTO tool_journal (tool_call_id, run_id, state) VALUES (?, ?, 'started') ON CONFLICT (tool_call_id) DO NOTHING`,
      toolCallId,
      this.runId,
    );
  }

  markExecuting(toolCall: AgentToolCall): void {
    this.sql.exec(
      `INSERT INTO tool_journal (tool_call_id, run_id, state) VALUES (?, ?, 'executing')
       ON CONFLICT (tool_call_id) DO UPDATE SET state = 'executing'`,
      toolCall.id,
      this.runId,
    );
  }

  markEnded(toolCallId: string, result: AgentToolResult, isError: boolean): void {
    this.sql.exec(
      `INSERT INTO tool_journal (tool_call_id, run_id, state, json) VALUES (?, ?, 'ended', ?)
       ON CONFLICT (tool_call_id) DO UPDATE SET state = 'ended', json = excluded.json`,
      toolCallId,
      this.runId,
      fitJson({ result, isError }),
    );
  }
}
