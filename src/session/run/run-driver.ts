/**
 * The run driver: which run goes when. At most one run at a time; input starts one when none is active;
 * the spec's continue() starts one on the history; an abort is handed to the active run; after a restart,
 * the run the stored record names is resumed; a session being erased stops its run and starts no other.
 * What a run does and how it ends is the run's own (run.ts). Invariants: a run never waits for its
 * answer to be taken (past 16 unread, the oldest is evicted); the driver keeps in memory only the window
 * of history a run can send.
 */
import { type AssistantMessage, toolCallsOf, type UserContent, type UserMessage } from "../../core/index.ts";
import { readSessionMaxBytes } from "../../config.ts";
import { sessionModel } from "../../llm/select-model.ts";
import type { SessionStatus } from "../../wire/snapshot.ts";
import type { SessionParts } from "../session-parts.ts";
import { ok, refuse, type SessionResult } from "../session-result.ts";
import { QUEUE_CAPACITY, type QueueKind } from "../storage/session-queues.ts";
import { readContextSummary } from "./context-summary.ts";
import { contextTokens, trimToWindow, windowChars } from "./memory-window.ts";
import type { StoredRun } from "./run-record.ts";
import { isSpent, sessionBudget } from "./token-budget.ts";
import { Run, type RunParts, type RunStart } from "./run.ts";

/** The session's parts the driver uses, and what it is told to call. */
export type RunDriverParts = Omit<RunParts, "model" | "maxContextTokens"> &
  Pick<SessionParts, "log"> & {
    /** A run started: the alarm keeps the object alive while it lasts (session-alarm.ts). */
    onRunStart: () => void;
    /** A run ended (the next queued one may have started): its user's session list learns the status. */
    onRunEnd?: () => void;
  };

export class RunDriver {
  private active: Run | undefined;
  /** No run starts any more: the session is being erased (the tombstone is the stored truth), or this instance can no longer store. */
  private closed = false;
  private historyLoaded = false;
  /** Settles when the active run's loop has returned and the driver has moved on. */
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly parts: RunDriverParts) {}

  get status(): SessionStatus {
    return this.closed ? "shutdown" : this.active ? "running" : "idle";
  }

  get isShutdown(): boolean {
    return this.closed;
  }

  /** The model this session's runs use (README "Models": a model per session). */
  get model(): string {
    return sessionModel(this.parts.env, this.parts.settings.model);
  }

  get activeRunId(): string | null {
    return this.active?.id ?? null;
  }

  /** Queues a user message (input or follow-up) and starts a run if none is active. */
  enqueue(kind: QueueKind, content: UserContent[]): SessionResult<{ messageId: string }> {
    if (this.closed) return refuse("shut_down", "Session is shut down");
    const stored = this.parts.ctx.storage.sql.databaseSize;
    const budget = readSessionMaxBytes(this.parts.env);
    if (stored >= budget)
      return refuse("over_budget", `This session stores ${stored} bytes, its budget (SESSION_MAX_BYTES) is ${budget}; start a new session`);
    const tokens = sessionBudget(this.parts);
    if (tokens && isSpent(tokens))
      return refuse("budget_exceeded", `This session used ${tokens.used} tokens of its budget of ${tokens.limit} (SESSION_TOKEN_BUDGET)`);
    const messageId = crypto.randomUUID();
    const message: UserMessage = { role: "user", content, timestamp: Date.now() };
    // An idle session starts the message's run at once, its record carrying the message (run-record.ts):
    // the record's row is written anyway, so the message costs no queue row (insert and delete), and a
    // restart before the run stored it finds it in the record and runs it.
    if (this.canStartNow()) {
      this.start([message]);
      return ok({ messageId });
    }
    // Not marked active here: the run the message starts (or waits for) stores `lastActiveAt` at its end, in
    // its end's commit, so a turn writes that row once (a row written is the dearest unit of the bill).
    if (!this.parts.queues.offer(kind, messageId, message)) {
      const name = kind === "input" ? "Input" : "Follow-up";
      return refuse("queue_full", `${name} queue is full (${QUEUE_CAPACITY[kind]} pending); retry later`);
    }
    this.startIfReady();
    return ok({ messageId });
  }

  /** The spec's continue(): a run on the current history with no new user message. */
  continueRun(): SessionResult<{ runId: string }> {
    if (this.closed) return refuse("shut_down", "Session is shut down");
    if (this.active) return refuse("run_active", "A run is active; continue is allowed only when the session is idle");
    if (this.parts.messages.isEmpty()) return refuse("nothing_to_continue", "Nothing to continue: the session has no history");
    return ok({ runId: this.start().id });
  }

  /** Aborts the active run (its signal reaches running tools); false when none was active. */
  abort(): SessionResult<{ aborted: boolean }> {
    if (!this.active) return ok({ aborted: false });
    this.active.abort("Aborted by request");
    return ok({ aborted: true });
  }

  /** Storage failed: the active run (if any) ends live only; true when there was one to tell. */
  failActiveRun(message: string): boolean {
    this.closed = true;
    if (!this.active) return false;
    this.active.endUnstored(message);
    return true;
  }

  /** Settles once no run of this instance is active any more. */
  settled(): Promise<void> {
    return this.running;
  }

  /** The session is being erased: no run starts from now on; the active one stops and is awaited. */
  async close(): Promise<void> {
    this.closed = true;
    const run = this.active;
    if (!run) return;
    run.cancel("Session shut down");
    await this.running;
  }

  /** No run is active or left open by a restart, nothing is queued before: a message may start its own run. */
  private canStartNow(): boolean {
    return !this.closed && !this.active && !this.parts.record.stored && !this.parts.queues.hasPendingInput();
  }

  /** Starts a run for pending input when none is active (never waits for unread answers to be taken). */
  startIfReady(): void {
    if (this.closed || this.active || !this.parts.queues.hasPendingInput()) return;
    // A run a failed write interrupted is taken up first (it drains the input itself).
    if (this.parts.record.stored) return this.resumeInterrupted();
    this.start();
  }

  /**
   * After a restart the `run` row outlives the in-memory run: storage says how far it got. A run that
   * already stored its answer (after the history it started from) only records its end; one whose abort
   * was asked for resumes only to stop (every open tool call still gets a result); a partial streamed
   * answer is announced abandoned before the LLM is asked again. With no run to resume, input that was
   * pending at the crash starts one now.
   */
  resumeInterrupted(): void {
    if (this.active || this.closed) return;
    const { record, state, messages, log, sink } = this.parts;
    const stored = record.stored;
    if (!stored) return this.startIfReady();
    const run = record.resume(messages.after(stored.startSeq))!;
    this.loadHistory();
    const last = state.messages.at(-1);
    const answered = messages.lastSeq() > run.startSeq;
    if (answered && last?.role === "assistant" && toolCallsOf(last).length === 0) {
      new Run(this.runParts(), run, { kind: "resumed" }).endAnswered(last as AssistantMessage);
      return this.startIfReady();
    }
    if (log.hasOpenMessage()) {
      sink.record(run.runId, {
        type: "messageAbandoned",
        reason: "The session restarted while this answer was streaming; it is asked for again",
      });
    }
    this.launch(run, { kind: "resumed", ...(run.intent ? { stopReason: "Aborted by request" } : {}) });
  }

  /**
   * Reads the newest window of history into memory, once per wake: a woken object that only answers
   * snapshots, pages or streams never reads it, so waking costs the same whatever the session's age.
   */
  private loadHistory(): void {
    if (this.historyLoaded) return;
    this.historyLoaded = true;
    const { state, messages, env, meta } = this.parts;
    const window = messages.window(windowChars(contextTokens(env)));
    state.messages.push(...window);
    // A message's seq is its position in history, so the window's start is where history ends minus its length.
    state.historyStart = messages.lastSeq() - state.messages.length;
    state.summary = readContextSummary(meta);
  }

  /** Drops from memory the messages before the window, keeping count of where memory starts in history. */
  private trimHistory(maxChars: number): void {
    const { state } = this.parts;
    state.historyStart = (state.historyStart ?? 0) + trimToWindow(state.messages, maxChars);
  }

  private start(input?: UserMessage[]): Run {
    const run = this.parts.record.begin(this.parts.messages.lastSeq(), input);
    return this.launch(run, { kind: "new" });
  }

  private runParts(): RunParts {
    return { ...this.parts, model: this.model, maxContextTokens: contextTokens(this.parts.env, this.model) };
  }

  private launch(stored: StoredRun, start: RunStart): Run {
    const { ctx, onRunStart } = this.parts;
    const maxChars = windowChars(contextTokens(this.parts.env));
    // Memory holds the window the context policy can send plus what this run appends; older messages
    // left memory when the previous run ended, and this run's leave when it ends.
    this.loadHistory();
    this.trimHistory(maxChars);
    const run = new Run(this.runParts(), stored, start);
    this.active = run;
    const done = run.go().finally(() => {
      if (this.active === run) this.active = undefined;
      this.trimHistory(maxChars);
      this.startIfReady();
      this.parts.onRunEnd?.();
    });
    this.running = done;
    ctx.waitUntil(done);
    onRunStart();
    return run;
  }
}
