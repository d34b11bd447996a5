/**
 * AgentSession: one Durable Object per session. It wires the core loop to SQLite storage (messages,
 * event log, queues, tool journal, approvals), to the SSE hub and to the LLM adapter. Public methods are
 * called over RPC by the Worker's router and return SessionResult values, never throw across RPC.
 * Invariants: a run is recorded in meta until its runEnd is stored (with its response on the output
 * queue, atomically); a run interrupted by a restart resumes from storage, on the next request or alarm.
 */
import { DurableObject } from "cloudflare:workers";
import { agentConfig } from "../agent-config.ts";
import {
  ToolStore,
  describeError,
  loadTools,
  runAgentLoop,
  toolCallsOf,
  type AgentEvent,
  type AgentState,
  type AssistantMessage,
  type BeforeToolCall,
  type UserContent,
} from "../core/index.ts";
import type { AppEnv } from "../env.ts";
import { keyMatchesHash } from "../credentials.ts";
import { ok, refuse, type SessionFailure, type SessionResult } from "./session-result.ts";
import { selectLlmCall } from "../llm/select-model.ts";
import { bundledRegistry } from "../tools/catalog.ts";
import { registerWrittenDrafts, writtenToolListing } from "../tools/written/session-tools.ts";
import { ApprovalGate } from "./approval-gate.ts";
import { EventHub } from "./event-hub.ts";
import { EventLog } from "./event-log.ts";
import { openEventStream } from "./event-stream.ts";
import { SessionMeta, type RunMeta, type SessionSettings } from "./session-meta.ts";
import { QUEUE_CAPACITY, SessionQueues, type QueueKind } from "./session-queues.ts";
import { applySchema } from "./session-schema.ts";
import { DeltaCoalescer } from "./delta-coalescer.ts";
import { SqlToolJournal } from "./tool-journal.ts";

/** While a run is active an alarm fires this often: it keeps the object alive and resumes it after a restart. */
export const RUN_HEARTBEAT_MS = 10_000;
/** Longest takeResponse wait the API accepts. */
export const MAX_RESPONSE_WAIT_MS = 60_000;

/** A var holding a positive whole number of milliseconds, else undefined (the config default applies). */
const positiveMs = (raw: string | undefined): number | undefined => (raw && /^\d+$/.test(raw.trim()) && Number(raw) > 0 ? Number(raw) : undefined);

type ActiveRun = { runId: string; controller: AbortController; done: Promise<void> };
type Loaded = {
  settings: SessionSettings;
  state: AgentState;
  log: EventLog;
  store: ToolStore;
  approvals: ApprovalGate;
};

export class AgentSession extends DurableObject<AppEnv> {
  private readonly sql: SqlStorage;
  private readonly meta: SessionMeta;
  private readonly queues: SessionQueues;
  private readonly hub = new EventHub();
  private loaded?: Loaded;
  private active?: ActiveRun;
  private readonly outputWaiters = new Set<() => void>();

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.meta = new SessionMeta(this.sql);
    this.queues = new SessionQueues(this.sql);
    void ctx.blockConcurrencyWhile(async () => {
      applySchema(this.sql);
      const settings = this.meta.read<SessionSettings>("session");
      if (settings) await this.load(settings);
      // The object starts only when something calls in (a request, or the heartbeat alarm a run keeps
      // set): a run a restart interrupted resumes here, before any method sees the session.
      this.resumeInterruptedRun();
    });
  }

  // ── RPC API (called by the router) ─────────────────────────────────────
  async init(settings: SessionSettings): Promise<SessionResult<{ id: string }>> {
    if (this.loaded) return refuse("already_exists", "Session already exists");
    this.meta.write("session", settings);
    await this.load(settings);
    return ok({ id: settings.id });
  }

  async snapshot(key: string | undefined) {
    const denied = await this.authorize(key);
    if (denied) return denied;
    const { settings, state, store, approvals, log } = this.loaded!;
    return ok({
      id: settings.id,
      status: this.status(),
      createdAt: settings.createdAt,
      systemPrompt: settings.systemPrompt,
      toolExecution: settings.toolExecution,
      messages: state.messages,
      queues: this.queues.depths(),
      queueCapacity: QUEUE_CAPACITY,
      tools: store.names(),
      pendingApprovals: approvals.pending(),
      lastEventSeq: log.lastSeq,
      activeRunId: this.meta.read<RunMeta>("run")?.runId ?? null,
    });
  }

  async enqueue(key: string | undefined, kind: Exclude<QueueKind, "output">, content: UserContent[]): Promise<SessionResult<{ messageId: string }>> {
    const denied = (await this.authorize(key)) ?? this.refuseIfShutdown();
    if (denied) return denied;
    const messageId = crypto.randomUUID();
    const accepted = this.queues.offer(kind, messageId, { role: "user", content, timestamp: Date.now() });
    if (!accepted) {
      const name = kind === "input" ? "Input" : "Follow-up";
      return refuse("queue_full", `${name} queue is full (${QUEUE_CAPACITY[kind]} pending); retry later`);
    }
    this.startRunIfReady();
    return ok({ messageId });
  }

  async takeResponse(key: string | undefined, waitMs: number): Promise<SessionResult<{ message: AssistantMessage | null }>> {
    const denied = await this.authorize(key);
    if (denied) return denied;
    const deadline = Date.now() + Math.min(Math.max(0, waitMs), MAX_RESPONSE_WAIT_MS);
    for (;;) {
      const message = this.queues.takeOutput();
      if (message) {
        this.startRunIfReady(); // the output queue has room again
        return ok({ message });
      }
      const left = deadline - Date.now();
      if (left <= 0 || this.loaded!.settings.shutdown) return ok({ message: null });
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.outputWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.outputWaiters.add(wake);
      });
    }
  }

  async continueRun(key: string | undefined): Promise<SessionResult<{ runId: string }>> {
    const denied = (await this.authorize(key)) ?? this.refuseIfShutdown();
    if (denied) return denied;
    if (this.active) return refuse("run_active", "A run is active; continue is allowed only when the session is idle");
    if (this.loaded!.state.messages.length === 0) return refuse("nothing_to_continue", "Nothing to continue: the session has no history");
    if (this.queues.isFull("output")) return refuse("queue_full", "Output queue is full; take responses first");
    return ok({ runId: this.startRun() });
  }

  async abort(key: string | undefined): Promise<SessionResult<{ aborted: boolean }>> {
    const denied = await this.authorize(key);
    if (denied) return denied;
    if (!this.active) return ok({ aborted: false });
    this.active.controller.abort(new Error("Aborted by request"));
    return ok({ aborted: true });
  }

  async decideApproval(key: string | undefined, toolCallId: string, approve: boolean, reason?: string) {
    const denied = (await this.authorize(key)) ?? this.refuseIfShutdown();
    if (denied) return denied;
    const outcome = this.loaded!.approvals.decide(toolCallId, approve, reason);
    if (outcome === "unknown") return refuse("unknown_approval", `No approval request for tool call ${toolCallId}`);
    if (outcome === "already_decided") return refuse("already_decided", `Tool call ${toolCallId} was already decided`);
    return ok({ toolCallId, approved: approve });
  }

  async shutdown(key: string | undefined): Promise<SessionResult<{ status: "shutdown" }>> {
    const denied = await this.authorize(key);
    if (denied) return denied;
    const loaded = this.loaded!;
    if (!loaded.settings.shutdown) {
      loaded.settings.shutdown = true;
      this.meta.write("session", loaded.settings);
      this.active?.controller.abort(new Error("Session shut down"));
      await this.active?.done;
      this.hub.closeAll();
      for (const wake of this.outputWaiters) wake();
    }
    return ok({ status: "shutdown" as const });
  }

  /** The live event stream after `afterSeq`, as bytes; the router builds the SSE response around it. */
  async openEvents(key: string | undefined, afterSeq: number): Promise<SessionResult<ReadableStream<Uint8Array>>> {
    const denied = await this.authorize(key);
    if (denied) return denied;
    const { log, settings } = this.loaded!;
    return openEventStream({ log, hub: this.hub, runs: { isShutdown: settings.shutdown === true } }, afterSeq);
  }

  override async alarm(): Promise<void> {
    // Waking the object is the point: its constructor resumes an interrupted run.
    if (!this.loaded) return;
    if (this.active || this.loaded.approvals.pending().length > 0) {
      await this.ctx.storage.setAlarm(Date.now() + RUN_HEARTBEAT_MS);
    }
  }

  // ── Runs ────────────────────────────────────────────────────────────────
  /** Loads the session; the promise settles once written tools' drafts are registered (it never rejects). */
  private load(settings: SessionSettings): Promise<string[]> {
    const store = new ToolStore(settings.id);
    const registry = bundledRegistry();
    const allowed = settings.tools ? Object.fromEntries(Object.entries(registry).filter(([name]) => settings.tools!.includes(name))) : registry;
    loadTools(store, allowed, writtenToolListing(this.env, store));
    const messages = this.sql.exec<{ json: string }>(`SELECT json FROM messages ORDER BY seq`).toArray().map((r) => JSON.parse(r.json));
    const state: AgentState = { systemPrompt: settings.systemPrompt, messages, tools: store.tools, activeRun: false };
    const log = new EventLog(this.sql, settings.id);
    const approvals = new ApprovalGate(
      this.sql,
      (event) => this.record(this.meta.read<RunMeta>("run")?.runId, event),
      positiveMs(this.env.APPROVAL_TIMEOUT_MS) ?? agentConfig.approvalTimeoutMs,
    );
    this.loaded = { settings, state, log, store, approvals };
    return registerWrittenDrafts(store, this.env, settings.tools);
  }

  private async authorize(key: string | undefined): Promise<SessionFailure | undefined> {
    if (!this.loaded) return refuse("not_found", "Session not found");
    if (!key) return refuse("missing_key", "Missing session key (Authorization: Bearer <key> or ?key=)");
    if (!(await keyMatchesHash(key, this.loaded.settings.keyHash))) return refuse("wrong_key", "Invalid session key");
    return undefined;
  }

  private refuseIfShutdown(): SessionFailure | undefined {
    return this.loaded?.settings.shutdown ? refuse("shut_down", "Session is shut down") : undefined;
  }

  private status(): "idle" | "running" | "shutdown" {
    if (this.loaded?.settings.shutdown) return "shutdown";
    return this.active || this.meta.read<RunMeta>("run") ? "running" : "idle";
  }

  private startRunIfReady(): void {
    if (this.active || !this.loaded || this.loaded.settings.shutdown) return;
    if (!this.queues.hasPendingInput() || this.queues.isFull("output")) return;
    this.startRun();
  }

  private startRun(): string {
    const runId = crypto.randomUUID();
    this.meta.write("run", { runId, startedAt: Date.now() } satisfies RunMeta);
    this.launch(runId, false);
    return runId;
  }

  /** After a restart the `run` row outlives the in-memory run: pick it up where storage says it stopped. */
  private resumeInterruptedRun(): void {
    if (this.active || !this.loaded) return;
    const run = this.meta.read<RunMeta>("run");
    if (!run) return;
    const last = this.loaded.state.messages.at(-1);
    if (last?.role === "assistant" && toolCallsOf(last).length === 0) {
      // The answer was stored but the object stopped before recording runEnd.
      this.record(run.runId, { type: "runEnd", response: last, stopReason: last.stopReason });
      return;
    }
    this.launch(run.runId, true);
  }

  private launch(runId: string, resumed: boolean): void {
    const controller = new AbortController();
    const done = this.execute(runId, resumed, controller.signal).finally(() => {
      if (this.active?.runId === runId) this.active = undefined;
      this.startRunIfReady();
    });
    this.active = { runId, controller, done };
    this.ctx.waitUntil(done);
    void this.ctx.storage.setAlarm(Date.now() + RUN_HEARTBEAT_MS);
  }

  private async execute(runId: string, resumed: boolean, signal: AbortSignal): Promise<void> {
    const { settings, state, store } = this.loaded!;
    const journal = new SqlToolJournal(this.sql, runId);
    const deltas = new DeltaCoalescer((event) => this.record(runId, event, journal));
    const emit = (event: AgentEvent) => deltas.emit(event);
    try {
      await runAgentLoop(
        {
          state,
          hooks: { ...agentConfig.hooks, llmCall: selectLlmCall(this.env), beforeToolCall: this.gatedBeforeToolCall(runId) },
          emit,
          toolExecution: settings.toolExecution,
          maxParallelToolCalls: agentConfig.maxParallelToolCalls,
          toolTimeoutMs: agentConfig.toolTimeoutMs,
          maxToolResultChars: agentConfig.maxToolResultChars,
          maxSteps: agentConfig.maxSteps,
          toolContext: { sessionId: settings.id, env: this.env, toolStore: store },
          journal,
          resumed,
          drainPending: () => this.queues.drainPending(),
          onMessage: (message) => void this.sql.exec(`INSERT INTO messages (json) VALUES (?)`, JSON.stringify(message)),
        },
        signal,
      );
    } catch (err) {
      // A fault escaped the loop (a bug or a broken hook): end the run visibly instead of leaving it open.
      const message = `Run failed: ${describeError(err)}`;
      const response: AssistantMessage = { role: "assistant", content: [], stopReason: "error", errorMessage: message, timestamp: Date.now() };
      emit({ type: "error", message });
      if (this.meta.read<RunMeta>("run")?.runId === runId) emit({ type: "runEnd", response, stopReason: "error" });
    }
  }

  /** Approval policy first (durable wait for a human), then the deployer's own beforeToolCall. */
  private gatedBeforeToolCall(runId: string): BeforeToolCall {
    return async (ctx, signal) => {
      const { settings, store, approvals } = this.loaded!;
      const tool = store.get(ctx.toolCall.name);
      if (tool && agentConfig.requiresApproval(ctx.toolCall, tool, settings)) {
        const decision = await approvals.request(runId, ctx.toolCall, ctx.args, signal);
        if (!decision.approved) return { block: true, reason: decision.reason };
      }
      return agentConfig.hooks.beforeToolCall?.(ctx, signal);
    };
  }

  /** The one event sink: log (durable), journal, run bookkeeping, then live subscribers. */
  private record(runId: string | undefined, event: AgentEvent, journal?: SqlToolJournal): void {
    const { stamped, json } = this.loaded!.log.append(event, runId, Date.now());
    if (event.type === "toolExecStart") journal?.markStarted(event.toolCallId);
    else if (event.type === "toolExecEnd") journal?.markEnded(event.toolCallId, event.result, event.isError);
    else if (event.type === "runEnd") {
      // Same synchronous block as the log append: the response and the end of the run commit together.
      this.queues.pushOutput(runId ?? crypto.randomUUID(), event.response);
      this.meta.delete("run");
      for (const wake of [...this.outputWaiters]) wake();
    }
    this.hub.publish(stamped.seq, stamped.type, json);
  }
}
