/**
 * A live session: its stored settings and the parts that own each concern (the run record, the event log,
 * the live fan-out, queues, messages, approvals, the run driver, schedules), as the loader wires them
 * (session-loader.ts). Types only: `SessionParts` is everything but the driver, which takes its parts from
 * it, so the driver, the loader and the views import these without a cycle.
 */
import type { AgentState, ToolStore } from "../core/index.ts";
import type { SessionMcpTools } from "../mcp/client/attach.ts";
import type { McpOAuthStore } from "../mcp/oauth/oauth-store.ts";
import type { ApprovalGate } from "./human/approval-gate.ts";
import type { ElicitationGate } from "./human/elicitation-gate.ts";
import type { LiveFanout } from "./events/live-fanout.ts";
import type { EventLog } from "./events/event-log.ts";
import type { EventSink } from "./events/event-sink.ts";
import type { EventSockets } from "./events/event-sockets.ts";
import type { MessageStore } from "./storage/message-store.ts";
import type { OutputWaiters } from "./run/output-waiters.ts";
import type { RunRecord } from "./run/run-record.ts";
import type { SessionMeta, SessionSettings } from "./storage/session-meta.ts";
import type { SessionQueues } from "./storage/session-queues.ts";
import type { StepWrites } from "./run/step-writes.ts";
import type { SubAgentCalls } from "./sub-agents/sub-agent-calls.ts";
import type { ScheduleStore } from "../schedules/schedule-store.ts";
import type { UserBudget } from "./run/token-budget.ts";
import type { SessionIndex } from "../users/session-index.ts";

export type SessionParts = {
  settings: SessionSettings;
  state: AgentState;
  store: ToolStore;
  meta: SessionMeta;
  /** The run in progress (or the one a restart interrupted) and the session's usage total. */
  record: RunRecord;
  queues: SessionQueues;
  messages: MessageStore;
  log: EventLog;
  /** The rows of messages, events and journal a step has queued, stored together (step-writes.ts). */
  writes: StepWrites;
  hub: LiveFanout;
  sockets: EventSockets;
  waiters: OutputWaiters;
  sink: EventSink;
  approvals: ApprovalGate;
  /** MCP servers' questions to the user, waiting for the elicitations route. */
  elicitations: ElicitationGate;
  /** Tools of the remote MCP servers the session chose, listed before each run. */
  mcp: SessionMcpTools;
  /** OAuth credentials of the MCP servers the session added (the deployer's are the Worker's). */
  mcpCredentials: McpOAuthStore;
  /** The children this session's sub-agent calls started (sub-agent-calls.ts). */
  subAgents: SubAgentCalls;
  /** Messages the session sends itself later (schedule-store.ts). */
  schedules: ScheduleStore;
  /** The session's user's daily token budget, when it has a user and USER_DAILY_TOKEN_BUDGET is set. */
  userBudget?: UserBudget;
  /** The session's entry in its user's list (src/users/session-index.ts), when it has a user and is no sub-agent's child. */
  userIndex?: SessionIndex;
};
