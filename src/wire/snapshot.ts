/**
 * The session snapshot (GET /v1/sessions/:id) and a page of its history (GET …/messages) as declared
 * types: the session's view and message store return them and the client SDK re-exports them, so server
 * and client cannot drift apart.
 */
import type { AgentMessage, BudgetState, ContextSummary, ToolExecutionMode, Usage } from "../core/index.ts";
import type { ScheduleListing } from "../schedules/schedule-vocabulary.ts";

/** One of the session's schedules (GET …/schedules and the snapshot's `schedules`). */
export type ScheduleEntry = ScheduleListing;

export type SessionStatus = "idle" | "running" | "shutdown";

export type QueueDepths = { input: number; followUp: number; output: number };

export type PendingApproval = { toolCallId: string; toolName: string; expiresAt: number };

/** A tool of the session that comes from a remote MCP server: its name here, the server and its name there. */
export type McpToolEntry = { name: string; server: string; tool: string };

/** A remote MCP server of the session: who listed it and whether its tools are there. */
export type McpServerEntry = {
  name: string;
  /** "deployer": from MCP_SERVERS (its credentials are the Worker's); "session": added by this session. */
  source: "deployer" | "session";
  status: "ready" | "authRequired" | "unavailable" | "connecting";
  /** While `authRequired`: where the user authorizes this Worker (the web page's "Connect" link). */
  authorizationUrl?: string;
  /** Only for servers the session added. */
  url?: string;
};

export type SessionSnapshot = {
  id: string;
  status: SessionStatus;
  createdAt: number;
  systemPrompt: string;
  toolExecution: ToolExecutionMode;
  /** The model this session's LLM calls use. */
  model: string;
  /** The newest page of history (oldest first); older pages via GET …/messages?before=. */
  messages: AgentMessage[];
  /** Pass as `before` to GET /v1/sessions/:id/messages for older messages; null when there are none. */
  messagesBefore: number | null;
  queues: QueueDepths;
  queueCapacity: QueueDepths;
  tools: string[];
  /** Which of `tools` come from remote MCP servers (and from which server and tool). */
  mcpTools: McpToolEntry[];
  /** The session's MCP servers and their state. */
  mcpServers: McpServerEntry[];
  pendingApprovals: PendingApproval[];
  /** MCP servers' questions waiting for POST …/elicitations/:elicitationId (the form is in their mcpElicitation event). */
  pendingElicitations: {
    elicitationId: string;
    server: string;
    message: string;
    requestedSchema: Record<string, unknown>;
    expiresAt: number;
  }[];
  /** Stream events after this seq to continue exactly where the snapshot ends. */
  lastEventSeq: number;
  activeRunId: string | null;
  /** Unread answers dropped to make room for newer ones, or no longer in the event log (all stay in history). */
  responsesEvicted: number;
  /**
   * Token usage of the session's LLM calls (compaction's summary calls included) and of tool results that
   * report one (its sub-agents' runs), summed.
   */
  usage: Usage & {
    /** The token budget that applies (with a session's and a user's, the one with less left), or null. */
    budget: BudgetState | null;
  };
  /**
   * The summary requests carry in place of the oldest messages once the conversation grew long (null
   * before the first compaction): its text and how many history messages, from the first, it stands for.
   * History keeps every original message.
   */
  contextSummary: ContextSummary | null;
  /** Tool names (or "*") whose calls wait for approval; change with updateSettings. */
  requireApproval: string[];
  /** Only on a sub-agent's child session: the parent session, the call it serves and its nesting depth. */
  subAgent?: { parentId: string; toolCallId: string; depth: number };
  /** The session's schedules, soonest first. */
  schedules: ScheduleEntry[];
  /** The signed-in user the session belongs to, or null for a session of no user. */
  userId: string | null;
};

/** A page of history (GET /v1/sessions/:id/messages). */
export type MessagePage = {
  /** Oldest first. */
  messages: AgentMessage[];
  /** Pass as `before` to get the page before this one; null when this page starts the history. */
  before: number | null;
};
