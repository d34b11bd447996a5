/**
 * The run driver: when runs start, continue, abort, resume after a restart, and stop for good. Its typed
 * state (`idle | running | shutdown`) says whether a run's loop is executing here; what the run is (id,
 * intent, start, usage) is the run record's (run-record.ts). Invariants: at most one run at a time; a run
 * never waits for the output queue (it evicts); the run record is how a run a restart interrupted is resumed.
 */
import { agentConfig } from "../../agent-config.ts";
import { describeError, runAgentLoop, toolCallsOf, type AgentEvent, type AssistantMessage, type UserContent } from "../../core/index.ts";
import type { AppEnv } from "../../env.ts";
import { readSessionMaxBytes, sessionIdleTtlMs } from "../../config.ts";
import type { SessionStatus } from "../../wire/snapshot.ts";
import { selectLlmCall, sessionModel } from "../../llm/select-model.ts";
import { DeltaCoalescer } from "./delta-coalescer.ts";
import { contextTokens, trimToWindow, windowChars } from "./memory-window.ts";
import { QUEUE_CAPACITY, type QueueKind } from "../storage/session-queues.ts";
import { fireDueSchedules } from "../../schedules/schedule-firing.ts";
import { ok, refuse, type SessionResult } from "../session-result.ts";
import { approvalPolicy } from "../human/tool-approval.ts";
import type { SessionParts } from "../session-parts.ts";
import { SqlToolJournal } from "./tool-journal.ts";

/** While a run is active an alarm fires this often: it keeps the object alive and resumes it after a restart. */
export const RUN_HEARTBEAT_MS = 10_000;

export type RunState = { kind: "idle" } | { kind: "running"; controller: AbortController; done: Promise<void> } | { kind: "shutdown" };

/** The session's parts the driver uses, and what it is told to call. */
export type RunDriverParts = Pick<
  SessionParts,
  "settings" | "state" | "store" | "meta" | "record" | "queues" | "messages" | "log" | "writes" | "approvals" | "sink" | "schedules"
> & {
  ctx: DurableObjectState;
  env: AppEnv;
  /** Ends what outlives a shutdown: open event streams and parked takeResponse calls. */
  onShutdown: () => void;
  /** Runs before each run's loop (also a resumed one), e.g. listing remote MCP tools; must not reject. */
  beforeRun?: () => Promise<void>;
};

export class RunDriver {
  private state: RunState;
  private historyLoaded = false;

  constructor(private readonly parts: RunDriverParts) {
    this.state = parts.settings.shutdown ? { kind: "shutdown" } : { kind: "idle" };
  }

  get status(): SessionStatus {
    return this.state.kind;
  }

  get isShutdown(): boolean {
    return this.state.kind === "shutdown";
  }

  /** The model this session's runs use (README "Models": a model per session). */
  get model(): string {
    return sessionModel(this.parts.env, this.parts.settings.model);
  }

  get activeRunId(): string | null {
    return this.state.kind === "running" ? (this.parts.record.runId ?? null) : null;
  }

  /** Queues a user message (input or follow-up) and starts a run if none is active. */
  enqueue(kind: Exclude<QueueKind, "output">, content: UserContent[]): SessionResult<{ messageId: string }> {
    if (this.isShutdown) return refuse("shut_down", "Session is shut down");
    const stored = this.parts.ctx.storage.sql.databaseSize;
    const budget = readSessionMaxBytes(this.parts.env);
    if (stored >= budget)
      return refuse("over_budget", `This session stores ${stored} bytes, its budget (SESSION_MAX_BYTES) is ${budget}; start a new session`);
    const messageId = crypto.randomUUID();
    this.parts.meta.write("lastActiveAt", Date.now());
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
    if (this.parts.messages.isEmpty()) return refuse("nothing_to_continue", "Nothing to continue: the session has no history");
    return ok({ runId: this.start() });
  }

  /** Aborts the active run (its signal reaches running tools); false when none was active. */
  abort(): SessionResult<{ aborted: boolean }> {
    if (this.state.kind !== "running") return ok({ aborted: false });
    // Recorded first, so a run a restart interrupts now resumes only to stop.
    this.parts.record.requestStop("abort");
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
      this.parts.record.requestStop("shutdown");
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
    // Never waits for room on the output queue: a 17th unread answer evicts the oldest.
    if (!this.parts.queues.hasPendingInput()) return;
    this.start();
  }

  /**
   * After a restart the `run` row outlives the in-memory run: storage says how far it got. A run that
   * already stored its answer (after the history it started from) only records its end; one whose
   * abort or shutdown was asked for resumes only to stop (every open tool call still gets a result);
   * a partial streamed answer is announced abandoned before the LLM is asked again. With no run to
   * resume, input that was pending at the crash starts one now.
   */
  resumeInterrupted(): void {
    if (this.state.kind === "running") return;
    const { record, state, messages, log, sink } = this.parts;
    const stored = record.stored;
    if (!stored) return this.startIfReady();
    const run = record.resume(messages.after(stored.startSeq))!;
    this.loadHistory();
    const last = state.messages.at(-1);
    const answered = messages.lastSeq() > run.startSeq;
    if (answered && last?.role === "assistant" && toolCallsOf(last).length === 0) {
      sink.record(run.runId, { type: "runEnd", response: last, stopReason: last.stopReason });
      record.release(run.runId);
      return this.startIfReady();
    }
    if (log.hasOpenMessage()) {
      sink.record(run.runId, {
        type: "messageAbandoned",
        reason: "The session restarted while this answer was streaming; it is asked for again",
      });
    }
    const stopReason =
      this.isShutdown || run.intent === "shutdown" ? "Session shut down" : run.intent === "abort" ? "Aborted by request" : undefined;
    this.launch(run.runId, true, stopReason);
  }

  /**
   * The alarm: fires due schedules; keeps the object alive (so it resumes after a restart) while a run or
   * an approval waits; starts a run for input left pending; sleeps until the next schedule while one is
   * pending; otherwise sleeps until the idle deadline and then answers
   * "expired" (SESSION_IDLE_TTL_DAYS after the last activity), for the session to erase itself.
   */
  async heartbeat(): Promise<"alive" | "expired"> {
    const { ctx, approvals, queues, meta, settings, env, schedules } = this.parts;
    this.fireDueSchedules();
    if (this.state.kind === "running" || approvals.pending().length > 0) {
      await ctx.storage.setAlarm(this.wakeAt(Date.now() + RUN_HEARTBEAT_MS));
      return "alive";
    }
    if (this.state.kind === "idle" && queues.hasPendingInput()) {
      this.startIfReady();
      return "alive";
    }
    // A session with schedules pending does not expire: it sleeps until the next one is due.
    const scheduled = this.isShutdown ? undefined : schedules.nextWakeAt(Date.now());
    if (scheduled !== undefined) {
      await ctx.storage.setAlarm(scheduled);
      return "alive";
    }
    const deadline = (meta.read<number>("lastActiveAt") ?? settings.createdAt) + sessionIdleTtlMs(env);
    if (Date.now() >= deadline) return "expired";
    await ctx.storage.setAlarm(deadline);
    return "alive";
  }

  /**
   * Queues the message of every schedule that is due (schedule-firing.ts) and starts a run for them.
   * Called on every wake (the constructor) and by the alarm; a second call for the same time finds nothing.
   */
  fireDueSchedules(): void {
    if (this.isShutdown) return;
    const { ctx, schedules, queues, sink } = this.parts;
    if (fireDueSchedules({ schedules, queues, sink, storage: ctx.storage }, Date.now()) > 0) this.startIfReady();
  }

  /** The one alarm serves the run heartbeat and the schedules: the sooner of `at` and the next schedule. */
  private wakeAt(at: number): number {
    return Math.min(at, this.parts.schedules.nextWakeAt(Date.now()) ?? at);
  }

  /**
   * Reads the newest window of history into memory, once per wake: a woken object that only answers
   * snapshots, pages or streams never reads it, so waking costs the same whatever the session's age.
   */
  private loadHistory(): void {
    if (this.historyLoaded) return;
    this.historyLoaded = true;
    const { state, messages, env } = this.parts;
    state.messages.push(...messages.window(windowChars(contextTokens(env))));
  }

  private start(): string {
    const { runId, startedAt } = this.parts.record.begin(this.parts.messages.lastSeq());
    this.parts.meta.write("lastActiveAt", startedAt);
    this.launch(runId, false);
    return runId;
  }

  /** Runs the loop; `stopReason` set means stop at once (an abort or shutdown asked for before a restart). */
  private launch(runId: string, resumed: boolean, stopReason?: string): void {
    const controller = new AbortController();
    if (stopReason) controller.abort(new Error(stopReason));
    const done = this.execute(runId, resumed, controller.signal).finally(() => {
      // An approval still waiting belongs to a run that is over: close it so a late decision gets 409.
      this.parts.approvals.closeRun(runId, "The run ended before a decision was made");
      if (this.state.kind === "running" && this.state.done === done)
        this.state = this.parts.settings.shutdown ? { kind: "shutdown" } : { kind: "idle" };
      this.parts.record.release(runId);
      this.startIfReady();
    });
    this.state = { kind: "running", controller, done };
    this.parts.ctx.waitUntil(done);
    void this.parts.ctx.storage.setAlarm(this.wakeAt(Date.now() + RUN_HEARTBEAT_MS));
  }

  private async execute(runId: string, resumed: boolean, signal: AbortSignal): Promise<void> {
    const { ctx, env, settings, state, queues, messages, record, writes, sink } = this.parts;
    await this.parts.beforeRun?.();
    const journal = new SqlToolJournal(ctx.storage.sql, writes, runId, resumed, (name) => state.tools.get(name)?.idempotent === true);
    // The loop's events, messages and journal rows wait with the step's writes (step-writes.ts): a step's
    // rows are stored after its LLM request has left, not before (the output gate would hold the request
    // until their commit). A restart in between finds the step as the last commit left it (a call whose
    // result was not stored is reported interrupted, or run again when idempotent), and nothing unstored
    // was published.
    const deltas = new DeltaCoalescer((event) => sink.defer(runId, event));
    const llmCall = selectLlmCall(env, { model: this.model });
    const emit = (event: AgentEvent) => deltas.emit(event);
    // Memory holds the window the context policy can send plus what this run appends; older messages
    // left memory when the previous run ended, and this run's leave when it ends.
    const maxContextTokens = contextTokens(env);
    this.loadHistory();
    trimToWindow(state.messages, windowChars(maxContextTokens));
    try {
      await runAgentLoop(
        {
          state,
          ...agentConfig.hooks,
          llmCall,
          awaitApproval: approvalPolicy(this.parts, runId),
          hookTimeoutMs: agentConfig.hookTimeoutMs,
          emit,
          toolExecution: settings.toolExecution,
          maxParallelToolCalls: agentConfig.maxParallelToolCalls,
          toolTimeoutMs: agentConfig.toolTimeoutMs,
          maxToolResultChars: agentConfig.maxToolResultChars,
          maxSteps: settings.maxSteps ?? agentConfig.maxSteps,
          maxContextTokens,
          // Bundled tools carry their declared context (tool-context.ts); the rest (listTools, drafts) get no env.
          toolContext: { sessionId: settings.id, env: {} },
          journal,
          resumed,
          drainPending: () => queues.drainPending(),
          onMessage: (message) => {
            messages.append(message);
            // A tool's usage (a sub-agent's child run) adds to the run's like the LLM's own.
            if (message.role === "assistant" || message.role === "toolResult") record.addUsage(message.usage);
            // Input drained from the queue (its rows are gone already) is stored in the same commit.
            if (message.role === "user") writes.flush();
          },
        },
        signal,
      );
    } catch (err) {
      // A fault escaped the loop (a bug or a broken hook): end the run visibly instead of leaving it open.
      const message = `Run failed: ${describeError(err)}`;
      const response: AssistantMessage = {
        role: "assistant",
        content: [],
        stopReason: "error",
        errorMessage: message,
        timestamp: Date.now(),
      };
      emit({ type: "error", message });
      if (record.isOpen(runId)) emit({ type: "runEnd", response, stopReason: "error" });
    } finally {
      // The run is over (its runEnd is stored): none of its calls is looked up again.
      journal.clear();
      writes.flush();
      trimToWindow(state.messages, windowChars(maxContextTokens));
    }
  }
}
