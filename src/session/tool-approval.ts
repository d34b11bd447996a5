/**
 * The approval policy around tool calls: a beforeToolCall hook that asks a human first (a durable wait in
 * the ApprovalGate) for the calls the deployer's policy names, then runs the deployer's own hook; and the
 * human's answer coming back through the approval route.
 */
import { agentConfig } from "../agent-config.ts";
import type { BeforeToolCall, ToolStore } from "../core/index.ts";
import type { ApprovalGate } from "./approval-gate.ts";
import type { SessionSettings } from "./session-meta.ts";
import { ok, refuse, type SessionResult } from "./session-result.ts";

type ApprovalParts = { settings: SessionSettings; store: ToolStore; approvals: ApprovalGate };

/** Approval policy first (durable wait for a human), then the deployer's own beforeToolCall. */
export function gatedBeforeToolCall({ settings, store, approvals }: ApprovalParts, runId: string): BeforeToolCall {
  return async (ctx, signal) => {
    const tool = store.get(ctx.toolCall.name);
    if (tool && agentConfig.requiresApproval(ctx.toolCall, tool, settings)) {
      const decision = await approvals.request(runId, ctx.toolCall, ctx.args, signal);
      if (!decision.approved) return { block: true, reason: decision.reason };
    }
    return agentConfig.hooks.beforeToolCall?.(ctx, signal);
  };
}

export function decideApproval(
  { approvals, runs }: { approvals: ApprovalGate; runs: { readonly isShutdown: boolean } },
  toolCallId: string,
  approve: boolean,
  reason?: string,
): SessionResult<{ toolCallId: string; approved: boolean }> {
  if (runs.isShutdown) return refuse("shut_down", "Session is shut down");
  const outcome = approvals.decide(toolCallId, approve, reason);
  if (outcome === "unknown") return refuse("unknown_approval", `No approval request for tool call ${toolCallId}`);
  if (outcome === "already_decided") return refuse("already_decided", `Tool call ${toolCallId} was already decided`);
  return ok({ toolCallId, approved: approve });
}
