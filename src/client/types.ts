/**
 * The shapes the client SDK sends and receives: request bodies, the session snapshot, the tool list and
 * the events its stream yields. Types only (erased when bundled for the browser); the event and message
 * types come from the core so the wire and the client cannot drift apart.
 */
import type { StampedEvent } from "../core/events.ts";
import type { AgentMessage, AssistantMessage, UserContent } from "../core/types.ts";

export type { StampedEvent } from "../core/events.ts";
export type { AgentMessage, AssistantMessage, UserContent } from "../core/types.ts";

export type ClientOptions = {
  /** Where the Worker is, e.g. "https://agent.example.com" or "" for the page's own origin. */
  baseUrl: string;
  /** Needed to create sessions and list tools when the Worker has API_TOKEN set. */
  apiToken?: string;
  /** Replaces the global fetch (tests, proxies, custom agents). */
  fetch?: typeof fetch;
};

export type CreateSessionOptions = {
  systemPrompt?: string;
  toolExecution?: "sequential" | "parallel";
  /** A subset of the bundled tools; all of them when absent. */
  tools?: string[];
  /** Tool names (or "*" for all) whose every call waits for approve/reject. */
  requireApproval?: string[];
  /** Names of the Worker's MCP_SERVERS whose tools the session uses; all of them when absent. */
  mcpServers?: string[];
};

export type MessageContent = string | UserContent[];

export type SessionStatus = "idle" | "running" | "shutdown";

export type PendingApproval = { toolCallId: string; toolName: string; expiresAt: number };

export type McpToolEntry = { name: string; server: string; tool: string };

export type SessionSnapshot = {
  id: string;
  status: SessionStatus;
  createdAt: number;
  systemPrompt: string;
  toolExecution: "sequential" | "parallel";
  /** The newest page of history (oldest first); older pages via `SessionHandle.messages({ before })`. */
  messages: AgentMessage[];
  /** Cursor for the page before `messages`; null when they start the history. */
  messagesBefore: number | null;
  queues: { input: number; followUp: number; output: number };
  queueCapacity: { input: number; followUp: number; output: number };
  tools: string[];
  /** The entries of `tools` that come from remote MCP servers. */
  mcpTools?: McpToolEntry[];
  pendingApprovals: PendingApproval[];
  /** Stream events after this seq to continue exactly where the snapshot ends. */
  lastEventSeq: number;
  activeRunId: string | null;
  /** Unread answers the output queue dropped to make room (they stay in `messages` and the event log). */
  responsesEvicted: number;
  /** Token usage of the session's LLM calls, summed. */
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  /** Tool names (or "*") whose calls wait for approval; change with updateSettings. */
  requireApproval: string[];
};

/** Settings a session may change while it lives (PATCH /v1/sessions/:id). */
export type SessionSettingsPatch = { requireApproval?: string[] };

/** A page of history (GET /v1/sessions/:id/messages), oldest first. */
export type MessagePage = {
  messages: AgentMessage[];
  /** Cursor for the page before this one; null when this page starts the history. */
  before: number | null;
};

export type ToolStatus = "bundled" | "pending" | "deployed" | "rejected" | (string & {});
export type ToolEntry = { name: string; status: ToolStatus; [key: string]: unknown };
export type ToolList = { bundled: ToolEntry[]; written?: ToolEntry[] };

/**
 * The server said events the client asked for were trimmed from its log (the wire's
 * `event: error` with `code: "events_dropped"` and no id). Replay continues at `oldestSeq`;
 * a caller rebuilding state should reload the snapshot.
 */
export type EventsDroppedNotice = { type: "eventsDropped"; oldestSeq: number; message: string };

/** What `events()` yields: every stamped event once, in seq order, and gap notices. */
export type SessionStreamEvent = StampedEvent | EventsDroppedNotice;

export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

export type EventStreamOptions = {
  /** Start after this seq (e.g. a snapshot's lastEventSeq); from the beginning of the log when absent. */
  lastEventId?: number;
  /** Ends the iteration (cleanly, without throwing) and closes the connection. */
  signal?: AbortSignal;
  /** Told about every connection change, e.g. to show "reconnecting…" in a UI. */
  onConnectionChange?: (state: ConnectionState, detail?: { delayMs?: number; error?: unknown }) => void;
  /** A connection silent for this long is treated as dead (the server pings every 15 s). */
  idleTimeoutMs?: number;
  /** Upper bound for the reconnect backoff. */
  maxRetryDelayMs?: number;
};

export type ApprovalResult = { toolCallId: string; approved: boolean };
export type TakenResponse = AssistantMessage | null;
