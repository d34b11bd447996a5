/**
 * Builds a live session from its stored settings: the tool store (bundled tools the session may use,
 * written tools, then drafts), the message store (history is read when a run needs it, not on wake),
 * the event log, sink, approval gate and run driver, wired together. Called by AgentSession on creation
 * and whenever the object starts.
 * The returned `ready` promise settles once written tools' drafts are registered; it never rejects.
 */
import { agentConfig } from "../agent-config.ts";
import { ToolStore, loadTools, type AgentState } from "../core/index.ts";
import type { AppEnv } from "../env.ts";
import { attachMcpTools } from "../mcp/attach.ts";
import { RunLog } from "../observability/run-log.ts";
import { sessionRegistry } from "../tools/catalog.ts";
import { withToolContexts } from "../tools/tool-context.ts";
import { registerWrittenDrafts, sessionToolHost, writtenToolListing } from "../tools/written/session-tools.ts";
import { ApprovalGate } from "./approval-gate.ts";
import { ElicitationGate } from "./elicitation-gate.ts";
import { LiveFanout } from "./live-fanout.ts";
import { EventLog } from "./event-log.ts";
import { EventSockets } from "./event-sockets.ts";
import { EventSink } from "./event-sink.ts";
import { MessageStore } from "./message-store.ts";
import { OutputWaiters } from "./output-waiters.ts";
import { RunDriver } from "./run-driver.ts";
import { RunRecord } from "./run-record.ts";
import type { Session } from "./session.ts";
import { SessionMeta, type SessionSettings } from "./session-meta.ts";
import { SessionQueues } from "./session-queues.ts";

/** A var holding a positive whole number of milliseconds, else undefined (the config default applies). */
const positiveMs = (raw: string | undefined): number | undefined => (raw && /^\d+$/.test(raw.trim()) && Number(raw) > 0 ? Number(raw) : undefined);

/** The stored settings, or undefined when this object holds no session (never created). */
export function readSettings(sql: SqlStorage): SessionSettings | undefined {
  return new SessionMeta(sql).read<SessionSettings>("session");
}

/** Stores the settings of a new session (AgentSession.init), before loading it. */
export function writeSettings(sql: SqlStorage, settings: SessionSettings): void {
  new SessionMeta(sql).write("session", settings);
}

export function loadSession(ctx: DurableObjectState, env: AppEnv, settings: SessionSettings): { session: Session; ready: Promise<unknown> } {
  const sql = ctx.storage.sql;
  const store = new ToolStore(settings.id);
  const registry = sessionRegistry(env);
  const allowed = settings.tools ? Object.fromEntries(Object.entries(registry).filter(([name]) => settings.tools!.includes(name))) : registry;
  loadTools(store, withToolContexts(allowed, sessionToolHost(store, env)), writtenToolListing(env, store));

  const meta = new SessionMeta(sql);
  const record = new RunRecord(meta);
  const queues = new SessionQueues(sql);
  const messages = new MessageStore(sql);
  const log = new EventLog(sql, settings.id);
  const sockets = new EventSockets(ctx);
  const hub = new LiveFanout(sockets);
  const waiters = new OutputWaiters();
  const sink = new EventSink({ log, queues, meta, record, hub, waiters, runLog: new RunLog() });
  const state: AgentState = { systemPrompt: settings.systemPrompt, messages: [], tools: store.tools };
  const approvals = new ApprovalGate(
    sql,
    (event) => sink.record(record.runId, event),
    positiveMs(env.APPROVAL_TIMEOUT_MS) ?? agentConfig.approvalTimeoutMs,
  );
  // Servers' questions wait as long as approvals do.
  const elicitations = new ElicitationGate(sql, (event) => sink.record(record.runId, event), positiveMs(env.APPROVAL_TIMEOUT_MS) ?? agentConfig.approvalTimeoutMs);
  const mcp = attachMcpTools(
    store,
    env,
    settings.mcpServers,
    (message) => sink.record(record.runId, { type: "error", message }),
    (server, question, signal) => elicitations.request(server, question, signal),
  );
  const onShutdown = () => {
    hub.closeAll();
    waiters.wakeAll();
    void mcp.close();
  };
  const beforeRun = () => mcp.refresh();
  const runs = new RunDriver({ ctx, env, settings, state, store, meta, record, queues, messages, log, approvals, sink, onShutdown, beforeRun });
  const session: Session = { settings, state, store, meta, record, queues, messages, log, hub, sockets, waiters, sink, approvals, elicitations, runs, mcp };
  return { session, ready: registerWrittenDrafts(store, env, settings.tools) };
}
