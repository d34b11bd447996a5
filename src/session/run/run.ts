/**
 * One run, from its start (or its resumption after a restart) to its end, and the only place a run ends.
 * It owns what belongs to the run alone: its stored record (id, stop intent, usage), its journal of tool
 * calls, the human decisions it asks for (keyed by its id), its step writes, and its end: the runEnd
 * event, its answer kept unread for takeResponse (the runEnd's seq in the record, run-record.ts) or handed
 * to a caller waiting for it, its usage folded into the session's, the record closed, waiting callers
 * woken, all in one commit. The core's loop reports the end (a runEnd event); a fault that
 * escapes the loop ends it with an error; a storage failure ends it live only (`endUnstored`), and the
 * session restarts from what was stored. Started and stopped by the run driver (run-driver.ts).
 */
import { agentConfig } from "../../agent-config.ts";
import { readSetting } from "../../config.ts";
import {
  type AgentEvent,
  type AssistantMessage,
  describeError,
  runAgentLoop,
  type StopReason,
  type UserMessage,
} from "../../core/index.ts";
import type { AppEnv } from "../../env.ts";
import { deploymentGuardrails } from "../../guardrails/catalog.ts";
import { selectLlmCall } from "../../llm/select-model.ts";
import { approvalPolicy } from "../human/tool-approval.ts";
import type { SessionParts } from "../session-parts.ts";
import { storeContextSummary } from "./context-summary.ts";
import { DeltaCoalescer } from "./delta-coalescer.ts";
import type { StoredRun } from "./run-record.ts";
import { sessionBudget, tighter, verdictOf } from "./token-budget.ts";
import { SqlToolJournal } from "./tool-journal.ts";

export type RunParts = Pick<
  SessionParts,
  "settings" | "state" | "store" | "meta" | "record" | "queues" | "messages" | "writes" | "approvals" | "sink" | "waiters" | "userBudget"
> & {
  ctx: DurableObjectState;
  env: AppEnv;
  model: string;
  maxContextTokens: number;
  /** Runs before the loop (also a resumed one's), e.g. listing remote MCP tools; must not reject. */
  beforeRun?: () => Promise<void>;
};

/** How a run goes: a new one from its runStart, or one a restart interrupted, taken up where storage says. */
export type RunStart = { kind: "new" } | { kind: "resumed"; stopReason?: string };

export class Run {
  readonly id: string;
  private readonly controller = new AbortController();
  private readonly journal: SqlToolJournal;
  private ended = false;
  /** The last stored message's seq when the run started: its own messages come after it. */
  private readonly startSeq: number;
  /** The message its record carries (run-record.ts), until drained: none once a message of the run is stored. */
  private carried: UserMessage[];

  constructor(
    private readonly parts: RunParts,
    stored: StoredRun,
    private readonly start: RunStart,
  ) {
    this.id = stored.runId;
    this.startSeq = stored.startSeq;
    // The carried message is the first the run stores: a resumed run that stored any has it in history.
    this.carried = parts.messages.lastSeq() > stored.startSeq ? [] : (stored.input ?? []);
    const { ctx, state, writes } = parts;
    this.journal = new SqlToolJournal(
      ctx.storage.sql,
      writes,
      this.id,
      start.kind === "resumed",
      (name) => state.tools.get(name)?.idempotent === true,
    );
    // Only this run's decisions are kept from now on: a call id the model reuses can find no older one.
    if (start.kind === "new") parts.approvals.forgetOtherRuns(this.id);
    if (start.kind === "resumed" && start.stopReason) this.controller.abort(new Error(start.stopReason));
  }

  /** Runs the loop; settles when the run is over (its end stored, or reported live after a storage failure), never rejects. */
  go(): Promise<void> {
    return this.execute(this.start.kind === "resumed");
  }

  /** Asks the run to stop (an abort request): recorded first, so a run a restart interrupts resumes only to stop. */
  abort(reason: string): void {
    this.parts.record.requestStop("abort");
    this.controller.abort(new Error(reason));
  }

  /** Stops the run without recording why: the session is being erased, nothing of it is kept. */
  cancel(reason: string): void {
    this.controller.abort(new Error(reason));
  }

  /** A run a restart interrupted after its answer was stored: it only records its end. */
  endAnswered(answer: AssistantMessage): void {
    this.end(answer, answer.stopReason);
  }

  /**
   * Storage failed under the run: nothing more of it can be stored, so its end (an error) goes out live
   * only, and the run stops. Its stored record stays open, so the session's restart resumes it from what
   * was stored.
   */
  endUnstored(message: string): void {
    if (this.ended) return;
    this.ended = true;
    const response = errorResponse(message);
    this.parts.sink.publishUnstored(this.id, { type: "error", message });
    this.parts.sink.publishUnstored(this.id, { type: "runEnd", response, stopReason: "error" });
    this.controller.abort(new Error(message));
    this.parts.waiters.wakeAll();
  }

  private async execute(resumed: boolean): Promise<void> {
    const { env, settings, state, queues, messages, record, writes, sink } = this.parts;
    await this.parts.beforeRun?.();
    // The loop's events, messages and journal rows wait with the step's writes (step-writes.ts): a step's
    // rows are stored after its LLM request has left, not before (the output gate would hold the request
    // until their commit). A restart in between finds the step as the last commit left it (a call whose
    // result was not stored is reported interrupted, or run again when idempotent), and nothing unstored
    // was published.
    const deltas = new DeltaCoalescer((event) =>
      event.type === "runEnd" ? this.end(event.response, event.stopReason) : sink.defer(this.id, event),
    );
    const emit = (event: AgentEvent) => deltas.emit(event);
    try {
      await runAgentLoop(
        {
          state,
          ...agentConfig.hooks,
          llmCall: selectLlmCall(env, { model: this.parts.model, onFallback: (info) => emit({ type: "modelFallback", ...info }) }),
          awaitApproval: approvalPolicy(this.parts, this.id),
          hookTimeoutMs: agentConfig.hookTimeoutMs,
          emit,
          toolExecution: settings.toolExecution,
          maxParallelToolCalls: agentConfig.maxParallelToolCalls,
          toolTimeoutMs: agentConfig.toolTimeoutMs,
          maxToolResultChars: agentConfig.maxToolResultChars,
          maxSteps: settings.maxSteps ?? agentConfig.maxSteps,
          maxContextTokens: this.parts.maxContextTokens,
          compactAt: readSetting(env, "COMPACT_AT"),
          // A resumed run's own messages are in memory already: they start after the seq it started from.
          ...(resumed ? { runStart: Math.max(0, this.startSeq - (state.historyStart ?? 0)) } : {}),
          onCompacted: (summary, usage) => {
            deltas.flush();
            storeContextSummary(this.parts, summary, usage);
          },
          onCompactionFailed: (err) =>
            console.warn(
              JSON.stringify({ event: "compactionFailed", sessionId: settings.id, runId: this.id, message: describeError(err) }),
            ),
          // Bundled tools carry their declared context (tool-context.ts); the rest (listTools, drafts) get no env.
          toolContext: { sessionId: settings.id, env: {} },
          journal: this.journal,
          resumed,
          guardrails: deploymentGuardrails(),
          checkBudget: async () => verdictOf(tighter(sessionBudget(this.parts), await this.parts.userBudget?.report(record.ownTokens()))),
          // The queue rows go in the same commit as the drained messages' storing (never lost between).
          drainPending: () => [...this.takeCarried(), ...queues.drainPending((sql, values) => writes.exec(sql, values))],
          onMessage: (message) => {
            messages.append(message);
            // A tool's usage (a sub-agent's child run) adds to the run's like the LLM's own.
            if (message.role === "assistant" || message.role === "toolResult") record.addUsage(message);
            // Drained input waits with the step's writes like the rest: its queue rows' removal is in the
            // same batch (drainPending), so the two still commit together, and its messageEnd shares the row
            // of the run's first events instead of a commit of its own.
          },
        },
        this.controller.signal,
      );
    } catch (err) {
      // A fault escaped the loop (a bug, a broken hook, a failed write): end the run visibly, never leave it open.
      if (writes.failed) return this.endUnstored(describeError(err));
      const message = `Run failed: ${describeError(err)}`;
      deltas.flush();
      sink.defer(this.id, { type: "error", message });
      this.end(errorResponse(message), "error");
    }
  }

  private takeCarried(): UserMessage[] {
    const carried = this.carried;
    this.carried = [];
    return carried;
  }

  /** The one end of a run: everything below is stored in one commit, then waiting callers wake. */
  private end(response: AssistantMessage, stopReason: StopReason | undefined): void {
    if (this.ended) return;
    const { ctx, sink, queues, record, writes, waiters, approvals } = this.parts;
    // A caller waiting for the next answer, with none older unread, is handed this one (nothing kept unread).
    const taker = record.unreadAnswers() === 0 ? waiters.takeWaiting() : undefined;
    try {
      ctx.storage.transactionSync(() => {
        // An approval still waiting belongs to a run that is over: closed, so a late decision gets 409.
        approvals.closeRun(this.id, "The run ended before a decision was made");
        const endSeq = sink.defer(this.id, { type: "runEnd", response, stopReason: stopReason ?? response.stopReason });
        // A message the run carried but stopped before storing (an abort before its first step) waits for the next run.
        for (const message of this.takeCarried()) queues.restore(crypto.randomUUID(), message);
        // The answer is its runEnd event: the record (written here anyway) keeps its seq unread, no row of its own.
        record.end(taker ? undefined : endSeq);
        // None of the run's calls is looked up again.
        this.journal.clear();
        writes.flush();
      });
    } catch (err) {
      // Nothing of the end was stored: it goes out live only (a failed step write has done so already).
      taker?.();
      return this.endUnstored(describeError(err));
    }
    this.ended = true;
    taker?.(response);
    waiters.wakeAll();
  }
}

function errorResponse(message: string): AssistantMessage {
  return { role: "assistant", content: [], stopReason: "error", errorMessage: message, timestamp: Date.now() };
}
