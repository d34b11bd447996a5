/**
 * The run driver: when runs start, continue, abort, resume after a restart, and stop for good. Its typed
 * state (`idle | running(runId) | shutdown`) is the single source of "is a run active". Invariants: at most
 * one run at a time; a run starts only while the output queue has room; a started run is recorded in meta
 * (`run`) until its runEnd is stored, which is how a run interrupted by a restart is found and resumed.
 */
import { agentConfig } from "../agent-config.ts";
import { describeError, runAgentLoop, toolCallsOf, type AgentEvent, type AgentState, type AssistantMessage, type ToolStore, type UserContent } from "../core/index.ts";
import type { AppEnv } from "../env.ts";
import { selectLlmCall } from "../llm/select-model.ts";
import type { ApprovalGate } from "./approval-gate.ts";
import { DeltaCoalescer } from "./delta-coalescer.ts";
import type { EventSink } from "./event-sink.ts";
import type { MessageStore } from "./message-store.ts";
import type { RunMeta, SessionMeta, SessionSettings } from "./session-meta.ts";
import { QUEUE_CAPACITY, type QueueKind, type SessionQueues } from "./session-queues.ts";
import { ok, refuse, type SessionResult } from "./session-result.ts";
import { approvalPolicy } from "./tool-approval.ts";
import { SqlToolJournal } from "./tool-journal.ts";

/** While a run is active an alarm fires this often: it keeps the object alive and resumes it after a restart. */
export const RUN_HEARTBEAT_MS = 10_000;

/** A var holding a positive whole number, else undefined (the config default applies). */
const positiveInt = (raw: string | undefined): number | undefined => (raw && /^\d+$/.test(raw.trim()) && Number(raw) > 0 ? Number(raw) : undefined);

export type RunState =
  | { kind: "idle" }
  | { kind: "running"; runId: string; controller: AbortController; done: Promise<void> }
  | { kind: "shutdown" };

export type SessionStatus = RunState["kind"];

export type RunDriverParts = {
  ctx: DurableObjectState;
  env: AppEnv;
  settings: SessionSettings;
  state: AgentState;
  store: ToolStore;
  meta: SessionMeta;
  queues: SessionQueues;
  messages: MessageStore;
  approvals: ApprovalGate;
  sink: EventSink;
  /** Ends what outlives a shutdown: open event streams and parked takeResponse calls. */
  onShutdown: () => void;
  /** Runs before each run's loop (also a resumed one), e.g. listing remote MCP tools; must not reject. */
  beforeRun?: () => Promise<void>;
};

export class RunDriver {
  private state: RunState;

  constructor(private readonly parts: RunDriverParts) {
    this.state = parts.settings.shutdown ? { kind: "shutdown" } : { kind: "idle" };
  }

  get status(): SessionStatus {
    return this.state.kind;
  }

  get isShutdown(): boolean {
    return this.state.kind === "shutdown";
  }

  get activeRunId(): string | null {
    return this.state.kind === "running" ? this.state.runId : null;
  }

  /** Queues a user message (input or follow-up) and starts a run if none is active. */
  enqueue(kind: Exclude<QueueKind, "output">, content: UserContent[]): SessionResult<{ messageId: string }> {
    if (this.isShutdown) return refuse("shut_down", "Session is shut down");
    const messageId = crypto.randomUUID();
    if (!this.parts.queues.offer(kind, messageId, { role: "user", content, timestamp: Date.now() })) {
      const name = kind === "input" ? "Input" : "Follow-up";
      return refuse("queue_full", `${name} queue is full (${QUEUE_CAPACITY[kind]} pending); retry later`);
    }
    this.startIfReady();
    return ok({ messageId });
  }

  /** The spec's continue(): a run on the current history with no new user message. */
  continueRun(): SessionResult<{ runId: string }> {
    if (this.state.kind === "shutdown") return refuse("shut_down", "Session is shut down");
    if (this.state.kind === "running") return refuse("run_active", "A run is active; continue is allowed only when the session is idle");
    if (this.parts.state.messages.length === 0) return refuse("nothing_to_continue", "Nothing to continue: the session has no history");
    if (this.parts.queues.isFull("output")) return refuse("queue_full", "Output queue is full; take responses first");
    return ok({ runId: this.start() });
  }

  /** Aborts the active run (its signal reaches running tools); false when none was active. */
  abort(): SessionResult<{ aborted: boolean }> {
    if (this.state.kind !== "running") return ok({ aborted: false });
    this.state.controller.abort(new Error("Aborted by request"));
    return ok({ aborted: true });
  }

  /** Refuses new input from now on, aborts and awaits the active run, then ends streams and waiters. */
  async shutdown(): Promise<SessionResult<{ status: "shutdown" }>> {
    const before = this.state;
    if (before.kind !== "shutdown") {
      this.state = { kind: "shutdown" };
      this.parts.settings.shutdown = true;
      this.parts.meta.write("session", this.parts.settings);
      if (before.kind === "running") {
        before.controller.abort(new Error("Session shut down"));
        await before.done;
      }
      this.parts.onShutdown();
    }
    return ok({ status: "shutdown" });
  }

  startIfReady(): void {
    if (this.state.kind !== "idle") return;
    if (!this.parts.queues.hasPendingInput() || this.parts.queues.isFull("output")) return;
    this.start();
  }

  /** After a restart the `run` row outlives the in-memory run: pick it up where storage says it stopped. */
  resumeInterrupted(): void {
    if (this.state.kind !== "idle") return;
    const run = this.parts.meta.read<RunMeta>("run");
    if (!run) return;
    const last = this.parts.state.messages.at(-1);
    if (last?.role === "assistant" && toolCallsOf(last).length === 0) {
      // The answer was stored but the object stopped before recording runEnd.
      this.parts.sink.record(run.runId, { type: "runEnd", response: last, stopReason: last.stopReason });
      return;
    }
    this.launch(run.runId, true);
  }

  /** The alarm: keeps the object alive (so it resumes after a restart) while a run or an approval waits. */
  async heartbeat(): Promise<void> {
    if (this.state.kind === "running" || this.parts.approvals.pending().length > 0) {
      await this.parts.ctx.storage.setAlarm(Date.now() + RUN_HEARTBEAT_MS);
    }
  }

  private start(): string {
    const runId = crypto.randomUUID();
    this.parts.meta.write("run", { runId, startedAt: Date.now() } satisfies RunMeta);
    this.launch(runId, false);
    return runId;
  }

  private launch(runId: string, resumed: boolean): void {
    const controller = new AbortController();
    const done = this.execute(runId, resumed, controller.signal).finally(() => {
      if (this.state.kind === "running" && this.state.runId === runId) this.state = { kind: "idle" };
      this.startIfReady();
    });
    this.state = { kind: "running", runId, controller, done };
    this.parts.ctx.waitUntil(done);
    void this.parts.ctx.storage.setAlarm(Date.now() + RUN_HEARTBEAT_MS);
  }

  private async execute(runId: string, resumed: boolean, signal: AbortSignal): Promise<void> {
    const { ctx, env, settings, state, store, queues, messages, meta, sink } = this.parts;
    await this.parts.beforeRun?.();
    const journal = new SqlToolJournal(ctx.storage.sql, runId);
    const deltas = new DeltaCoalescer((event) => sink.record(runId, event, journal));
    const emit = (event: AgentEvent) => deltas.emit(event);
    try {
      await runAgentLoop(
        {
          state,
          ...agentConfig.hooks,
          llmCall: selectLlmCall(env),
          requestApproval: approvalPolicy(this.parts, runId),
          hookTimeoutMs: agentConfig.hookTimeoutMs,
          emit,
          toolExecution: settings.toolExecution,
          maxParallelToolCalls: agentConfig.maxParallelToolCalls,
          toolTimeoutMs: agentConfig.toolTimeoutMs,
          maxToolResultChars: agentConfig.maxToolResultChars,
          maxSteps: agentConfig.maxSteps,
          maxContextTokens: positiveInt(env.MAX_CONTEXT_TOKENS) ?? agentConfig.maxContextTokens,
          // Bundled tools carry their declared context (tool-context.ts); the rest (listTools, drafts) get no env.
          toolContext: { sessionId: settings.id, env: {} },
          journal,
          resumed,
          drainPending: () => queues.drainPending(),
          onMessage: (message) => messages.append(message),
        },
        signal,
      );
    } catch (err) {
      // A fault escaped the loop (a bug or a broken hook): end the run visibly instead of leaving it open.
      const message = `Run failed: ${describeError(err)}`;
      const response: AssistantMessage = { role: "assistant", content: [], stopReason: "error", errorMessage: message, timestamp: Date.now() };
      emit({ type: "error", message });
      if (meta.read<RunMeta>("run")?.runId === runId) emit({ type: "runEnd", response, stopReason: "error" });
    }
  }
}
