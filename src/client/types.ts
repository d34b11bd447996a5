/**
 * The shapes the client SDK sends and receives: request bodies and connection options. Types only
 * (erased when bundled for the browser). The snapshot, history pages, the tool list and the event union
 * are the wire's (src/wire/), re-exported here, so the server and the client cannot drift apart.
 */
import type { AssistantMessage, UserContent } from "../core/index.ts";
import type { WireEvent } from "../wire/events.ts";

export type { AgentMessage, AssistantMessage, ToolResultMessage, UserContent, UserMessage } from "../core/index.ts";
export type { EventsDroppedEvent, StampedEvent, WireEvent, WireEventType } from "../wire/events.ts";
export type { McpCatalogEntry, ToolEntry, ToolList, ToolStatus } from "../wire/tool-list.ts";
export type {
  McpServerEntry,
  McpToolEntry,
  MessagePage,
  PendingApproval,
  QueueDepths,
  ScheduleEntry,
  SessionSnapshot,
  SessionStatus,
} from "../wire/snapshot.ts";
export type { Memory, MemoryList, SessionListing, SessionPage } from "../wire/users.ts";

export type ClientOptions = {
  /** Where the Worker is, e.g. "https://agent.example.com" or "" for the page's own origin. */
  baseUrl: string;
  /** Needed to create sessions and list tools when the Worker has API_TOKEN set. */
  apiToken?: string;
  /**
   * A signed-in user's JWT (README "Users"), or a function that returns a current one: creates sessions
   * that belong to the user and reads their session list and memory. A session's own calls keep using
   * its key.
   */
  userToken?: string | (() => string | Promise<string>);
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
  /** A model from the Worker's MODELS allowlist; the configured model when absent. */
  model?: string;
  /** The operator (apiToken) creating a session for a user; a userToken creates the user's own. */
  userId?: string;
};

export type MessageContent = string | UserContent[];

/** Settings a session may change while it lives (PATCH /v1/sessions/:id). */
export type SessionSettingsPatch = { requireApproval?: string[] };

/** What `events()` yields: every stamped event once, in seq order, and eventsDropped notices. */
export type SessionStreamEvent = WireEvent;

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

/** A schedule to create: `message` and exactly one of `at`, `delayMs`, `cron` (5 fields, UTC), `everyMs`. */
export type ScheduleOptions = { message: string; at?: string | number; delayMs?: number; cron?: string; everyMs?: number; name?: string };
export type TakenResponse = AssistantMessage | null;
