/**
 * The session snapshot (GET /v1/sessions/:id): status, the last page of history with the cursor to the
 * page before it, queue depths, tools, pending approvals and the log position to stream from, read from
 * the live session's parts. Its size does not grow with the session's age.
 */
import type { Usage } from "../core/index.ts";
import { QUEUE_CAPACITY } from "./session-queues.ts";
import type { Session } from "./session-loader.ts";

/** Messages in the snapshot's page: a screenful of conversation; older ones via GET …/messages?before=. */
export const SNAPSHOT_PAGE_MESSAGES = 50;

export function describeSession({ settings, store, approvals, log, queues, runs, meta, mcp, messages }: Session) {
  const page = messages.page(undefined, SNAPSHOT_PAGE_MESSAGES);
  return {
    id: settings.id,
    status: runs.status,
    createdAt: settings.createdAt,
    systemPrompt: settings.systemPrompt,
    toolExecution: settings.toolExecution,
    model: runs.model,
    messages: page.messages,
    /** Pass as `before` to GET /v1/sessions/:id/messages for older messages; null when there are none. */
    messagesBefore: page.before,
    queues: queues.depths(),
    queueCapacity: QUEUE_CAPACITY,
    tools: store.names(),
    /** Which of `tools` come from remote MCP servers (and from which server and tool). */
    mcpTools: mcp.tools(),
    pendingApprovals: approvals.pending(),
    lastEventSeq: log.lastSeq,
    activeRunId: runs.activeRunId,
    /** Unread answers the output queue dropped to make room (they stay in history and the event log). */
    responsesEvicted: meta.read<number>("responsesEvicted") ?? 0,
    /** Token usage of the session's LLM calls, summed. */
    usage: meta.read<Usage>("usage") ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    requireApproval: settings.requireApproval,
  };
}
