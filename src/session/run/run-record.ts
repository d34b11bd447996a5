/**
 * The run record: what a run is while it lasts, as stored (its id, the stop asked for, the last stored
 * message's seq when it started, its token usage), and the session's usage total. The meta `run` row exists
 * from a run's start until its runEnd is stored, in the same commit as that event (run.ts calls `end`),
 * which is how a run a restart interrupted is found. Used by the run (run.ts) and the run driver.
 */
import { readUsage, type AgentMessage, type Usage } from "../../core/index.ts";
import type { SessionMeta } from "../storage/session-meta.ts";

/**
 * Why a run must stop: asked for while it was active, so a run a restart interrupted resumes only to stop.
 * (Rows stored by earlier versions may say "shutdown"; the session's tombstone now records a DELETE.)
 */
export type StopIntent = "abort" | "shutdown";

export type StoredRun = {
  runId: string;
  startedAt: number;
  /** The last stored message's seq when the run started: an answer after it is this run's own. */
  startSeq: number;
  intent?: StopIntent;
};

const RUN_KEY = "run";
const USAGE_KEY = "usage";
/** Tokens of the session's total that its sub-agents' model calls used (not its own): a user's daily count takes them from the child. */
const DELEGATED_KEY = "delegatedTokens";
const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

export class RunRecord {
  /** The run whose runEnd is not stored yet (mirrors the `run` row). */
  private open: StoredRun | undefined;
  /** The live run's id, from its start (or resume) until the driver releases it after its loop returned. */
  private live: string | undefined;
  /** Token usage of the open run, not yet in the stored total: added to it once, at the runEnd. */
  private usage: Usage = NO_USAGE;
  /** Of the open run's usage, the tokens sub-agents used (tool results' usage). */
  private delegated = 0;

  constructor(private readonly meta: SessionMeta) {
    this.open = meta.read<StoredRun>(RUN_KEY);
  }

  /** The run a restart interrupted (or the live one): present until its runEnd is stored. */
  get stored(): StoredRun | undefined {
    return this.open;
  }

  /** The id of the run in progress, if any: the one events and approvals belong to. */
  get runId(): string | undefined {
    return this.live ?? this.open?.runId;
  }

  /** Records a new run starting after the message with seq `startSeq`. */
  begin(startSeq: number): StoredRun {
    const run: StoredRun = { runId: crypto.randomUUID(), startedAt: Date.now(), startSeq };
    this.meta.write(RUN_KEY, run);
    this.open = run;
    this.live = run.runId;
    this.usage = NO_USAGE;
    this.delegated = 0;
    return run;
  }

  /** Takes up the interrupted run again; its earlier attempt's stored messages count for its usage. */
  resume(earlierMessages: readonly AgentMessage[]): StoredRun | undefined {
    if (!this.open) return undefined;
    this.live = this.open.runId;
    this.usage = NO_USAGE;
    this.delegated = 0;
    for (const message of earlierMessages) if (message.role === "assistant" || message.role === "toolResult") this.addUsage(message);
    return this.open;
  }

  requestStop(intent: StopIntent): void {
    if (!this.open || this.open.intent) return;
    this.open = { ...this.open, intent };
    this.meta.write(RUN_KEY, this.open);
  }

  /**
   * A message of the run was stored: its usage counts toward the run's. An assistant message's is the
   * session's own model call; a tool result's is a sub-agent's (its child run's calls).
   */
  addUsage(message: { role: "assistant" | "toolResult"; usage?: unknown }): void {
    this.usage = addUsage(this.usage, message.usage);
    const read = message.role === "toolResult" ? readUsage(message.usage) : undefined;
    if (read) this.delegated += read.inputTokens + read.outputTokens;
  }

  /**
   * Usage stored at once into the session's total, not the run's (a compaction's summary call: no
   * message carries it, so a resumed run could not count it again from history). Call inside the commit
   * that stores what the usage paid for.
   */
  addStoredUsage(usage: unknown): void {
    if (!readUsage(usage)) return;
    this.meta.write(USAGE_KEY, addUsage(this.meta.read<Usage>(USAGE_KEY) ?? NO_USAGE, usage));
  }

  /** The run's runEnd is being stored: folds its usage into the total and removes the row (same commit). */
  end(): void {
    if (this.usage.totalTokens > 0 || this.usage.inputTokens > 0 || this.usage.outputTokens > 0) {
      this.meta.write(USAGE_KEY, this.sessionUsage());
      this.usage = NO_USAGE;
    }
    if (this.delegated > 0) {
      this.meta.write(DELEGATED_KEY, this.delegatedTokens());
      this.delegated = 0;
    }
    if (this.open) this.meta.delete(RUN_KEY);
    this.open = undefined;
  }

  /** The driver is done with the run `runId` (its loop returned). */
  release(runId: string): void {
    if (this.live === runId) this.live = undefined;
  }

  /** Whether `runId`'s runEnd is still to be stored. */
  isOpen(runId: string): boolean {
    return this.open?.runId === runId;
  }

  /** The session's token usage (shown in the snapshot): the stored sum plus the open run's. */
  sessionUsage(): Usage {
    return addUsage(this.meta.read<Usage>(USAGE_KEY) ?? NO_USAGE, this.usage);
  }

  /** Input plus output tokens of this session's own model calls (its sub-agents' excluded): what it reports to its user's daily count. */
  ownTokens(): number {
    const usage = this.sessionUsage();
    return usage.inputTokens + usage.outputTokens - this.delegatedTokens();
  }

  private delegatedTokens(): number {
    return (this.meta.read<number>(DELEGATED_KEY) ?? 0) + this.delegated;
  }
}

/** A running sum, no history scan; values that are not usage add nothing. */
function addUsage(total: Usage, usage: unknown): Usage {
  const add = readUsage(usage);
  if (!add) return total;
  return {
    inputTokens: total.inputTokens + add.inputTokens,
    outputTokens: total.outputTokens + add.outputTokens,
    totalTokens: total.totalTokens + add.totalTokens,
  };
}
