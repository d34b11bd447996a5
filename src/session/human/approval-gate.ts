/**
 * Durable human approval of tool calls. A call that needs approval gets a `waiting` row (which survives
 * restarts) and one toolApprovalRequired event; the run awaits the decision, which comes from the
 * approval route, from the deadline passing, or from an abort. An abort (or DELETE) closes the row for
 * good (`cancelled`), so a late decision gets 409 and nothing keeps the alarm alive. A resumed run finds
 * the row and waits again (or uses a decision taken while the object was down) without announcing twice.
 */
import type { AgentEvent, AgentToolCall, ApprovalDecision, ToolArguments } from "../../core/index.ts";
import { HumanWaits } from "./human-waits.ts";

export type ApprovalStatus = "waiting" | "approved" | "rejected" | "timeout" | "cancelled";

type Row = { tool_call_id: string; status: ApprovalStatus; reason: string | null; expires_at: number; tool_name: string };

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
    let row = this.row(toolCall.id);
    if (!row) {
      const expiresAt = Date.now() + this.timeoutMs;
      this.sql.exec(
        `INSERT INTO approvals (tool_call_id, run_id, tool_name, status, reason, expires_at) VALUES (?, ?, ?, 'waiting', NULL, ?)`,
        toolCall.id,
        runId,
        toolCall.name,
        expiresAt,
      );
      this.emit({ type: "toolApprovalRequired", toolCallId: toolCall.id, toolName: toolCall.name, arguments: args });
      row = { tool_call_id: toolCall.id, status: "waiting", reason: null, expires_at: expiresAt, tool_name: toolCall.name };
    }
    if (row.status !== "waiting") return toDecision(row);
    return this.waits.wait(toolCall.id, row.expires_at, signal, (end) => {
      if (end === "abort") {
        this.setStatus(toolCall.id, "cancelled", "Run aborted while waiting for approval");
        return { approved: false, reason: "Run aborted while waiting for approval" };
      }
      this.setStatus(toolCall.id, "timeout", null);
      return { approved: false, reason: `Approval timed out after ${Math.round(this.timeoutMs / 1000)} s` };
    });
  }

  /** Records a human's answer. Returns what happened so the route can answer 200, 404 or 409. */
  decide(toolCallId: string, approve: boolean, reason?: string): "decided" | "unknown" | "already_decided" {
    const row = this.row(toolCallId);
    if (!row) return "unknown";
    if (row.status !== "waiting") return "already_decided";
    this.setStatus(toolCallId, approve ? "approved" : "rejected", reason ?? null);
    this.onDecided?.(toolCallId, approve);
    this.waits.settle(toolCallId, toDecision({ ...row, status: approve ? "approved" : "rejected", reason: reason ?? null }));
    return "decided";
  }

  /** Closes every request of a run still waiting (the run ended or was aborted); returns how many. */
  closeRun(runId: string, reason: string): number {
    const open = this.sql
      .exec<{ tool_call_id: string }>(`SELECT tool_call_id FROM approvals WHERE run_id = ? AND status = 'waiting'`, runId)
      .toArray();
    for (const { tool_call_id } of open) {
      this.setStatus(tool_call_id, "cancelled", reason);
      this.waits.settle(tool_call_id, { approved: false, reason });
    }
    return open.length;
  }

  pending(): { toolCallId: string; toolName: string; expiresAt: number }[] {
    return this.sql
      .exec<Row>(`SELECT tool_call_id, tool_name, status, reason, expires_at FROM approvals WHERE status = 'waiting' ORDER BY expires_at`)
      .toArray()
      .map((r) => ({ toolCallId: r.tool_call_id, toolName: r.tool_name, expiresAt: r.expires_at }));
  }

  private row(toolCallId: string): Row | undefined {
    return this.sql
      .exec<Row>(`SELECT tool_call_id, tool_name, status, reason, expires_at FROM approvals WHERE tool_call_id = ?`, toolCallId)
      .toArray()[0];
  }

  private setStatus(toolCallId: string, status: ApprovalStatus, reason: string | null): void {
    this.sql.exec(`UPDATE approvals SET status = ?, reason = ? WHERE tool_call_id = ?`, status, reason, toolCallId);
  }
}

function toDecision(row: Pick<Row, "status" | "reason">): ApprovalDecision {
  if (row.status === "approved") return { approved: true };
  if (row.status === "timeout") return { approved: false, reason: "Approval timed out" };
  if (row.status === "cancelled") return { approved: false, reason: row.reason ?? "Approval request closed" };
  return { approved: false, reason: row.reason ? `Rejected: ${row.reason}` : "Rejected by the user" };
}
