/**
 * Builds a live session from its stored settings: the tool store (bundled tools the session may use, no
 * sub-agents at the nesting limit, written tools, the MCP servers' tools, then drafts), the message store
 * (history is read when a run needs it, not on wake), the event log, sink, approval and elicitation gates,
 * schedules, sub-agent calls and run driver, wired together. Called by AgentSession on creation and
 * whenever the object starts (or restarts after a failed write: `onStorageFailed`).
 * The returned `ready` promise settles once the session's own written-tool drafts are registered (at
 * once for a session that wrote none, or with writeTool off); it never rejects.
 */
import { ToolStore, loadTools, type AgentState } from "../core/index.ts";
import { createRunCodeTool, RUN_CODE } from "../code-mode/run-code-tool.ts";
import type { AppEnv } from "../env.ts";
import { attachMcpTools } from "../mcp/client/attach.ts";
import { McpOAuthStore } from "../mcp/oauth/oauth-store.ts";
import { readAddedServers } from "../mcp/client/session-servers.ts";
import { RunLog } from "../observability/run-log.ts";
import { readSetting } from "../config.ts";
import { sessionTracing } from "../observability/session-tracing.ts";
import { resolveProvider, sessionModel } from "../llm/select-model.ts";
import { sessionRegistry } from "../tools/catalog.ts";
import { isSubAgent } from "../tools/define-tool.ts";
import { withToolContexts } from "../tools/tool-context.ts";
import { registerOwnDrafts, sessionToolHost, writtenToolListing } from "../tools/written/session-tools.ts";
import { ApprovalGate } from "./human/approval-gate.ts";
import { ElicitationGate } from "./human/elicitation-gate.ts";
import { LiveFanout } from "./events/live-fanout.ts";
import { EventLog } from "./events/event-log.ts";
import { EventSockets } from "./events/event-sockets.ts";
import { EventSink } from "./events/event-sink.ts";
import { MessageStore } from "./storage/message-store.ts";
import { OutputWaiters } from "./run/output-waiters.ts";
import { RunDriver } from "./run/run-driver.ts";
import { RunRecord } from "./run/run-record.ts";
import { sessionTokensLeft } from "./run/token-budget.ts";
import type { Session } from "./session.ts";
import { SessionMeta, type SessionSettings } from "./storage/session-meta.ts";
import { SessionQueues } from "./storage/session-queues.ts";
import { StepWrites } from "./run/step-writes.ts";
import { SubAgentCalls } from "./sub-agents/sub-agent-calls.ts";
import type { RunSubAgent } from "./sub-agents/sub-agent-vocabulary.ts";
import { ScheduleStore } from "../schedules/schedule-store.ts";
import { armRunHeartbeat, planAlarm } from "./session-alarm.ts";
import { scheduleAccess } from "../schedules/schedule-access.ts";
import { memoryAccess, sessionIndex } from "../users/session-index.ts";
import { userBudget } from "../users/user-budget.ts";

/** The stored settings, or undefined when this object holds no session (never created). */
export function readSettings(sql: SqlStorage): SessionSettings | undefined {
  return new SessionMeta(sql).read<SessionSettings>("session");
}

/** Stores the settings of a new session (AgentSession.init), before loading it. */
export function writeSettings(sql: SqlStorage, settings: SessionSettings): void {
  new SessionMeta(sql).write("session", settings);
}

const needsMemory = (tool: { capabilities?: readonly string[] }): boolean => tool.capabilities?.includes("memory") ?? false;

export function loadSession(
  ctx: DurableObjectState,
  env: AppEnv,
  settings: SessionSettings,
  /** A write failed: this instance stores nothing more; reload the session from storage once `settled`. */
  onStorageFailed: (settled: Promise<void>) => void,
): { session: Session; ready: Promise<unknown> } {
  const sql = ctx.storage.sql;
  const store = new ToolStore(settings.id);
  const registry = sessionRegistry(env);
  // A session at the nesting limit (MAX_SUBAGENT_DEPTH) is offered no sub-agents.
  const atDepthLimit = (settings.subAgent?.depth ?? 0) >= readSetting(env, "MAX_SUBAGENT_DEPTH");
  // A session of no user has no memory, so none of the tools that need one (remember, recall, forget).
  const memory = memoryAccess(env, settings);
  const allowed = Object.fromEntries(
    Object.entries(registry).filter(
      ([name, mod]) =>
        (!settings.tools || settings.tools.includes(name)) &&
        !(atDepthLimit && isSubAgent(mod.getTool())) &&
        (memory !== undefined || !needsMemory(mod.getTool())),
    ),
  );
  // Late-bound: the run record exists below, before any tool can run.
  let subAgents: SubAgentCalls | undefined;
  const schedules = new ScheduleStore(sql, {
    maxSchedules: readSetting(env, "MAX_SCHEDULES"),
    minIntervalMs: readSetting(env, "SCHEDULE_MIN_INTERVAL_MS"),
  });
  const meta = new SessionMeta(sql);
  const host = sessionToolHost(store, env, meta);
  const runSubAgent: RunSubAgent = (request, onPartialResult, signal) => subAgents!.run(request, onPartialResult, signal);
  // The schedule tools' capability re-arms the alarm through the driver, built below (read only when called).
  const capabilities = {
    ...host.capabilities,
    runSubAgent,
    schedules: scheduleAccess(schedules, () => void planAlarm({ ...session, ctx, env })),
    ...(memory ? { memory } : {}),
  };
  loadTools(store, withToolContexts(allowed, { ...host, capabilities }), writtenToolListing(env, store));
  // Code mode: programs run in Loader isolates, so it needs the binding too.
  if (readSetting(env, "CODE_MODE") && env.LOADER && (!settings.tools || settings.tools.includes(RUN_CODE))) {
    store.register(createRunCodeTool(store, env.LOADER));
  }

  const record = new RunRecord(meta);
  const queues = new SessionQueues(sql);
  const writes = new StepWrites(ctx.storage);
  const messages = new MessageStore(sql, writes);
  const log = new EventLog(sql, writes, settings.id);
  subAgents = new SubAgentCalls({
    sql,
    env,
    settings,
    log,
    runId: () => record.runId,
    tokensLeft: () => sessionTokensLeft({ env, meta, record, settings }),
  });
  const sockets = new EventSockets(ctx);
  const hub = new LiveFanout(sockets);
  const waiters = new OutputWaiters();
  const provider = resolveProvider(env);
  const tracing = sessionTracing(
    env,
    {
      provider: typeof provider === "string" ? provider : provider.invalid,
      model: sessionModel(env, settings.model),
      ...(settings.subAgent?.parentRunId
        ? { parent: { runId: settings.subAgent.parentRunId, toolCallId: settings.subAgent.toolCallId } }
        : {}),
    },
    (work) => ctx.waitUntil(work),
  );
  const sink = new EventSink({ log, writes, hub, runLog: new RunLog(), tracing });
  const state: AgentState = { systemPrompt: settings.systemPrompt, messages: [], tools: store.tools };
  const approvalTimeoutMs = readSetting(env, "APPROVAL_TIMEOUT_MS");
  const approvals = new ApprovalGate(
    sql,
    (event) => sink.record(record.runId, event),
    approvalTimeoutMs,
    tracing && ((toolCallId, approved) => tracing.approvalDecided(toolCallId, approved)),
  );
  const mcpCredentials = new McpOAuthStore(sql);
  // Servers' questions wait as long as approvals do.
  const elicitations = new ElicitationGate(sql, (event) => sink.record(record.runId, event), approvalTimeoutMs);
  const mcp = attachMcpTools(
    store,
    env,
    settings.mcpServers,
    (event) => sink.record(record.runId, event),
    { sessionId: settings.id, origin: settings.origin, added: readAddedServers(meta), store: mcpCredentials },
    (server, question, signal) => elicitations.request(server, question, signal),
  );
  const beforeRun = () => mcp.refresh();
  const index = sessionIndex(env, settings);
  const budget = userBudget(env, settings);
  // A run's last model call is counted in its user's day at once, not at the session's next call (which may never come).
  const reportSpent = async (): Promise<void> => {
    try {
      await budget?.report(record.ownTokens());
    } catch (err) {
      console.error(JSON.stringify({ event: "userBudgetReportFailed", sessionId: settings.id, message: String(err) }));
    }
  };
  const runs: RunDriver = new RunDriver({
    ctx,
    env,
    settings,
    state,
    store,
    meta,
    record,
    queues,
    messages,
    log,
    writes,
    approvals,
    sink,
    waiters,
    beforeRun,
    ...(budget ? { userBudget: budget } : {}),
    onRunStart: () => armRunHeartbeat({ ctx, schedules }),
    onRunEnd: () => {
      if (index) ctx.waitUntil(index.touched(runs.status));
      if (budget) ctx.waitUntil(reportSpent());
    },
  });
  writes.onFailure = (failure) => {
    // Nothing queued after the last stored event was stored: its seqs are free again.
    log.discardUnstored();
    if (!runs.failActiveRun(failure.message)) sink.publishUnstored(record.runId, { type: "error", message: failure.message });
    onStorageFailed(runs.settled());
  };
  const session: Session = {
    settings,
    state,
    store,
    meta,
    record,
    queues,
    messages,
    log,
    writes,
    hub,
    sockets,
    waiters,
    sink,
    approvals,
    elicitations,
    runs,
    mcp,
    mcpCredentials,
    subAgents,
    schedules,
    ...(budget ? { userBudget: budget } : {}),
    ...(index ? { userIndex: index } : {}),
  };
  return { session, ready: registerOwnDrafts(store, env, meta, settings.tools) };
}
