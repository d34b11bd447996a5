/**
 * The session snapshot (GET /v1/sessions/:id): status, history, queue depths, tools, pending approvals
 * and the log position to stream from, read from the live session's parts.
 */
import { QUEUE_CAPACITY } from "./session-queues.ts";
import type { Session } from "./session-loader.ts";

export function describeSession({ settings, state, store, approvals, log, queues, runs }: Session) {
  return {
    id: settings.id,
    status: runs.status,
    createdAt: settings.createdAt,
    systemPrompt: settings.systemPrompt,
    toolExecution: settings.toolExecution,
    messages: state.messages,
    queues: queues.depths(),
    queueCapacity: QUEUE_CAPACITY,
    tools: store.names(),
    pendingApprovals: approvals.pending(),
    lastEventSeq: log.lastSeq,
    activeRunId: runs.activeRunId,
  };
}
