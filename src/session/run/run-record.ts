/**
 * The run record: what a run is while it lasts, as stored (its id, the stop asked for, the last stored
 * message's seq when it started), the session's usage total and when it was last active, all in one meta
 * row (`record`), written when a run starts and when it ends (a row written is the dearest unit of a turn's
 * bill, docs/benchmarks.md "What a turn costs"). Its `run` exists from a run's start until its runEnd is
 * stored, in the same commit as that event (run.ts calls `end`), which is how a run a restart interrupted is
 * found. Used by the run (run.ts), the run driver, the alarm (the idle deadline) and the snapshot.
 *
 * The same row is takeResponse's read cursor (output-waiters.ts): `answers` lists the event seqs of the
 * runEnds whose answers no caller has taken yet, oldest first, at most 16 (the spec's output channel); an
 * older one is dropped and counted in `responsesEvicted`. The answer itself is read from its runEnd event
 * (stored anyway, event-log.ts), so a run's end writes nothing for its answer (its seq rides in the row the
 * end writes anyway) and a take writes this one row; an output queue row cost an insert and a delete, and
 * for a client that follows the event stream and never takes, an eviction and a counter row every turn.
 */
import { readUsage, type AgentMessage, type AssistantMessage, type Usage, type UserMessage } from "../../core/index.ts";
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
  /**
   * The user's message that started the run in an idle session, carried here instead of on the input
   * queue (no queue row to insert and delete). It is the first message the run stores, so it is still
   * pending while no message after `startSeq` is stored (run.ts).
   */
  input?: UserMessage[];
};

/**
 * The meta row: `run` while a run is open; the session's usage (its sub-agents' share apart); its last run's
 * end; the unread answers (their runEnd events' seqs, oldest first) and how many went unread for good.
 */
type StoredRecord = {
  run?: StoredRun;
  usage?: Usage;
  delegatedTokens?: number;
  lastActiveAt?: number;
  answers?: number[];
  responsesEvicted?: number;
};

/** Unread answers kept for takeResponse (the spec's output channel): a newer one drops the oldest. */
export const UNREAD_ANSWERS = 16;

export const RECORD_KEY = "record";
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
    this.open = this.row().run ?? undefined;
  }

  /** When the session's last run ended (the idle deadline counts from it); undefined before its first. */
  get lastActiveAt(): number | undefined {
    return this.row().lastActiveAt;
  }

  /** The run a restart interrupted (or the live one): present until its runEnd is stored. */
  get stored(): StoredRun | undefined {
    return this.open;
  }

  /** The id of the run in progress, if any: the one events and approvals belong to. */
  get runId(): string | undefined {
    return this.live ?? this.open?.runId;
  }

  /** Records a new run starting after the message with seq `startSeq`, carrying `input` if given. */
  begin(startSeq: number, input?: UserMessage[]): StoredRun {
    const run: StoredRun = { runId: crypto.randomUUID(), startedAt: Date.now(), startSeq, ...(input ? { input } : {}) };
    this.open = run;
    this.store({});
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
    this.store({});
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
    this.store({ usage: addUsage(this.row().usage ?? NO_USAGE, usage) });
  }

  /**
   * The run's runEnd is being stored: folds its usage into the total, closes the run and marks the
   * session active, in one row (same commit). `answerSeq`, the runEnd's seq, keeps its answer unread for
   * takeResponse (none when it was handed to a waiting caller); past 16 the oldest unread one is evicted.
   */
  end(answerSeq?: number): void {
    const usage = this.sessionUsage();
    const delegatedTokens = this.delegatedTokens();
    this.usage = NO_USAGE;
    this.delegated = 0;
    this.open = undefined;
    const unread = answerSeq === undefined ? {} : this.keptUnread([...this.answers(), answerSeq], 0);
    this.store({ usage, delegatedTokens, lastActiveAt: Date.now(), ...unread });
  }

  /** How many answers wait for takeResponse (the snapshot's `queues.output`). */
  unreadAnswers(): number {
    return this.answers().length;
  }

  /** Unread answers dropped to make room for newer ones, or whose runEnd the event log no longer held. */
  get responsesEvicted(): number {
    return this.row().responsesEvicted ?? 0;
  }

  /**
   * Takes the oldest unread answer, read by `answerAt` from its runEnd event, and moves the cursor past it
   * (this row, written once). One the log no longer holds (trimmed) is skipped and counted as evicted.
   */
  takeAnswer(answerAt: (seq: number) => AssistantMessage | undefined): AssistantMessage | undefined {
    const answers = this.answers();
    if (answers.length === 0) return undefined;
    let skipped = 0;
    let answer: AssistantMessage | undefined;
    while (!answer && skipped < answers.length) {
      answer = answerAt(answers[skipped]!);
      if (!answer) skipped++;
    }
    const taken = answer ? skipped + 1 : skipped;
    this.store(this.keptUnread(answers.slice(taken), skipped));
    return answer;
  }

  private answers(): number[] {
    return this.row().answers ?? [];
  }

  /** The row's fields for `answers` unread, the oldest past 16 dropped and counted with `lost` more. */
  private keptUnread(answers: number[], lost: number): Pick<StoredRecord, "answers" | "responsesEvicted"> {
    const evicted = Math.max(0, answers.length - UNREAD_ANSWERS) + lost;
    return {
      answers: answers.slice(-UNREAD_ANSWERS),
      ...(evicted > 0 ? { responsesEvicted: this.responsesEvicted + evicted } : {}),
    };
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
    return addUsage(this.row().usage ?? NO_USAGE, this.usage);
  }

  /** Input plus output tokens of this session's own model calls (its sub-agents' excluded): what it reports to its user's daily count. */
  ownTokens(): number {
    const usage = this.sessionUsage();
    return usage.inputTokens + usage.outputTokens - this.delegatedTokens();
  }

  private delegatedTokens(): number {
    return (this.row().delegatedTokens ?? 0) + this.delegated;
  }

  private row(): StoredRecord {
    return this.meta.read<StoredRecord>(RECORD_KEY) ?? {};
  }

  /** Writes the row with `change` and the open run (none: the key is left out). */
  private store(change: StoredRecord): void {
    const { run: _closed, ...kept } = this.row();
    this.meta.write(RECORD_KEY, { ...kept, ...change, ...(this.open ? { run: this.open } : {}) });
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
