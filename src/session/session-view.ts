/**
 * The session snapshot (GET /v1/sessions/:id): status, the last page of history with the cursor to the
 * page before it, queue depths, tools, pending approvals, schedules and the log position to stream from, read from
 * the live session's parts. Its size does not grow with the session's age. The type is the wire's
 * (src/wire/snapshot.ts), which the client SDK re-exports.
 */
import type { BudgetState } from "../core/index.ts";
import type { SessionSnapshot } from "../wire/snapshot.ts";
import { sessionBudget, tighter } from "./run/token-budget.ts";
import { readContextSummary } from "./run/context-summary.ts";
import { QUEUE_CAPACITY } from "./storage/session-queues.ts";
import type { Session } from "./session.ts";

/** Messages in the snapshot's page: a screenful of conversation; older ones via GET …/messages?before=. */
export const SNAPSHOT_PAGE_MESSAGES = 50;

export function describeSession(
  { settings, store, approvals, elicitations, log, queues, runs, meta, mcp, messages, record, schedules }: Session,
  env: { SESSION_TOKEN_BUDGET?: string | undefined },
  /** The user's daily budget as it stands, when one applies (UserBudget.report). */
  userBudget?: BudgetState,
): SessionSnapshot {
  const page = messages.page(undefined, SNAPSHOT_PAGE_MESSAGES);
  const usage = record.sessionUsage();
  return {
    id: settings.id,
    status: runs.status,
    createdAt: settings.createdAt,
    systemPrompt: settings.systemPrompt,
    toolExecution: settings.toolExecution,
    model: runs.model,
    messages: page.messages,
    messagesBefore: page.before,
    queues: { ...queues.depths(), output: record.unreadAnswers() },
    queueCapacity: QUEUE_CAPACITY,
    tools: store.names(),
    mcpTools: mcp.tools(),
    mcpServers: mcp.describe(),
    pendingApprovals: approvals.pending(),
    pendingElicitations: elicitations.pending(),
    lastEventSeq: log.lastSeq,
    activeRunId: runs.activeRunId,
    responsesEvicted: record.responsesEvicted,
    /** Token usage of the session's LLM calls and of tool results that report one, summed. */
    usage: { ...usage, budget: tighter(sessionBudget({ env, meta, record, settings }), userBudget) },
    contextSummary: readContextSummary(meta),
    requireApproval: settings.requireApproval,
    ...(settings.subAgent
      ? { subAgent: { parentId: settings.subAgent.parentId, toolCallId: settings.subAgent.toolCallId, depth: settings.subAgent.depth } }
      : {}),
    schedules: schedules.list(),
    userId: settings.userId ?? null,
  };
}
