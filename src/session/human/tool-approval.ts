/**
 * The approval policy around tool calls: the run's awaitApproval step asks a human (a durable wait in
 * the ApprovalGate) for the calls the deployer's policy names; the deployer's own beforeToolCall runs after
 * it in the core pipeline. And the human's answer coming back through the approval route.
 */
import { agentConfig } from "../../agent-config.ts";
import type { AwaitApproval, ToolStore } from "../../core/index.ts";
import type { ApprovalGate } from "./approval-gate.ts";
import type { SessionSettings } from "../storage/session-meta.ts";
import { ok, refuse, type SessionResult } from "../session-result.ts";

type ApprovalParts = { settings: SessionSettings; store: ToolStore; approvals: ApprovalGate };

/** Asks a human when the deployer's policy says so (not held to the hook timeout: the gate has its own deadline). */
export function approvalPolicy({ settings, store, approvals }: ApprovalParts, runId: string): AwaitApproval {
  return async (ctx, signal) => {
    const tool = store.get(ctx.toolCall.name);
    if (!tool || !agentConfig.needsApproval(ctx.toolCall, tool, settings)) return undefined;
    return approvals.request(runId, ctx.toolCall, ctx.args, signal);
  };
}

export function decideApproval(
  { approvals }: { approvals: ApprovalGate },
  toolCallId: string,
  approve: boolean,
  reason?: string,
): SessionResult<{ toolCallId: string; approved: boolean }> {
  const outcome = approvals.decide(toolCallId, approve, reason);
  if (outcome === "unknown") return refuse("unknown_approval", `No approval request for tool call ${toolCallId}`);
  if (outcome === "already_decided") return refuse("already_decided", `Tool call ${toolCallId} was already decided`);
  return ok({ toolCallId, approved: approve });
}
