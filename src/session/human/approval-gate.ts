/**
 * Durable human approval of tool calls. A decision belongs to the run and the call it was asked for: rows
 * are keyed by (run, call), so a call id the model reuses in a later run waits for a person again, whether
 * or not the earlier call is still in the model's context. A call that needs approval gets a `waiting` row
 * (which survives restarts) and one toolApprovalRequired event; the run awaits the decision, which comes
 * from the approval route, from the deadline passing, or from an abort. An abort (or DELETE) closes the
 * row for good (`cancelled`), so a late decision gets 409 and nothing keeps the alarm alive. A resumed
 * run finds its row and waits again (or uses a decision taken while the object was down) without
 * announcing twice. Bounded: a run's start removes every earlier run's rows (`forgetOtherRuns`).
 */
import type { AgentEvent, AgentToolCall, ApprovalDecision, ToolArguments } from "../../core/index.ts";
import { HumanWaits } from "./human-waits.ts";

export type ApprovalStatus = "waiting" | "approved" | "rejected" | "timeout" | "cancelled";

type Row = { run_id: string; tool_call_id: string; status: ApprovalStatus; reason: string | null; expires_at: number; tool_name: string };

const COLUMNS = `run_id, tool_call_id, tool_name, status, reason, expires_at`;

export class ApprovalGate {
  private readonly waits = new HumanWaits<ApprovalDecision>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly emit: (event: AgentEvent) => void,
    private readonly timeoutMs: number,
    /** Told of each human answer (the trace's approval wait ends there); must not throw. */
    private readonly onDecided?: (toolCallId: string, approved: boolean) => void,
  ) {}

  async request(runId: string, toolCall: AgentToolCall, args: ToolArguments, signal?: AbortSignal): Promise<ApprovalDecision> {
    let row = this.sql.exec<Row>(`SELECT ${COLUMNS} FROM approvals WHERE run_id = ? AND tool_call_id = ?`, runId, toolCall.id).toArray()[0];
    if (!row) {
      const expiresAt = Date.now() + this.timeoutMs;
      this.sql.exec(
        `INSERT INTO approvals (${COLUMNS}) VALUES (?, ?, ?, 'waiting', NULL, ?)`,
        runId,
        toolCall.id,
        toolCall.name,
        expiresAt,
      );
      this.emit({
        type: "toolApprovalRequired",
        toolCallId: toolCall.id,
        toolName: toolCall.name,
        arguments: args,
        ...(toolCall.parentToolCallId ? { parentToolCallId: toolCall.parentToolCallId } : {}),
      });
      row = { run_id: runId, tool_call_id: toolCall.id, status: "waiting", reason: null, expires_at: expiresAt, tool_name: toolCall.name };
    }
    if (row.status !== "waiting") return toDecision(row);
    const waiting = row;
    return this.waits.wait(waitId(waiting), waiting.expires_at, signal, (end) => {
      if (end === "abort") {
        this.setStatus(waiting, "cancelled", "Run aborted while waiting for approval");
        return { approved: false, reason: "Run aborted while waiting for approval" };
      }
      this.setStatus(waiting, "timeout", null);
      return { approved: false, reason: `Approval timed out after ${Math.round(this.timeoutMs / 1000)} s` };
    });
  }

  /**
   * Records a human's answer to the call `toolCallId` of the run that asked (the id its
   * toolApprovalRequired event carried). Only one run is active at a time and it closes its waiting rows
   * when it ends, so at most one row with this id is waiting; a row of a finished run answers 409.
   */
  decide(toolCallId: string, approve: boolean, reason?: string): "decided" | "unknown" | "already_decided" {
    const row = this.sql
      .exec<Row>(
        `SELECT ${COLUMNS} FROM approvals WHERE tool_call_id = ? ORDER BY status = 'waiting' DESC, expires_at DESC LIMIT 1`,
        toolCallId,
      )
      .toArray()[0];
    if (!row) return "unknown";
    if (row.status !== "waiting") return "already_decided";
    const status = approve ? "approved" : "rejected";
    this.setStatus(row, status, reason ?? null);
    this.onDecided?.(toolCallId, approve);
    this.waits.settle(waitId(row), toDecision({ status, reason: reason ?? null }));
    return "decided";
  }

  /** Closes every request of a run still waiting (the run ended or was aborted); returns how many. */
  closeRun(runId: string, reason: string): number {
    const open = this.sql.exec<Row>(`SELECT ${COLUMNS} FROM approvals WHERE run_id = ? AND status = 'waiting'`, runId).toArray();
    for (const row of open) {
      this.setStatus(row, "cancelled", reason);
      this.waits.settle(waitId(row), { approved: false, reason });
    }
    return open.length;
  }

  /** A new run starts: earlier runs' decisions are over (their late answers now get 404, not 409). */
  forgetOtherRuns(runId: string): void {
    this.sql.exec(`DELETE FROM approvals WHERE run_id != ?`, runId);
  }

  pending(): { toolCallId: string; toolName: string; expiresAt: number }[] {
    return this.sql
      .exec<Row>(`SELECT ${COLUMNS} FROM approvals WHERE status = 'waiting' ORDER BY expires_at`)
      .toArray()
      .map((r) => ({ toolCallId: r.tool_call_id, toolName: r.tool_name, expiresAt: r.expires_at }));
  }

  private setStatus(row: Pick<Row, "run_id" | "tool_call_id">, status: ApprovalStatus, reason: string | null): void {
    this.sql.exec(
      `UPDATE approvals SET status = ?, reason = ? WHERE run_id = ? AND tool_call_id = ?`,
      status,
      reason,
      row.run_id,
      row.tool_call_id,
    );
  }
}

const waitId = (row: Pick<Row, "run_id" | "tool_call_id">) => `${row.run_id}/${row.tool_call_id}`;

function toDecision(row: Pick<Row, "status" | "reason">): ApprovalDecision {
  if (row.status === "approved") return { approved: true };
  if (row.status === "timeout") return { approved: false, reason: "Approval timed out" };
  if (row.status === "cancelled") return { approved: false, reason: row.reason ?? "Approval request closed" };
  return { approved: false, reason: row.reason ? `Rejected: ${row.reason}` : "Rejected by the user" };
}
