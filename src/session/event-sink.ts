/**
 * The session's one event sink. Every event (from the loop, the approval gate, run bookkeeping) is
 * appended to the durable log, then the tool journal and run bookkeeping follow, and once its row is
 * written it is fanned out to live SSE subscribers (stored before published). `record` writes at once;
 * `defer` (the loop's events) leaves the row in the write buffer for the next flush point, so a step's
 * events are written together. A runEnd puts the run's answer on the output queue, adds the run's token
 * usage to the session's total and clears the run marker in the same synchronous block as its log append
 * and the flush, so they commit together (a resumed run recounts its stored messages' usage first).
 */
import { readUsage, type AgentMessage, type AgentEvent, type Usage } from "../core/index.ts";
import type { StampedEvent } from "../wire/events.ts";
import type { EventHub } from "./event-hub.ts";
import type { EventLog } from "./event-log.ts";
import type { OutputWaiters } from "./output-waiters.ts";
import type { SessionMeta } from "./session-meta.ts";
import type { SessionQueues } from "./session-queues.ts";
import type { SqlToolJournal } from "./tool-journal.ts";
import type { WriteBuffer } from "./write-buffer.ts";
import type { RunLog } from "../observability/run-log.ts";

type SinkParts = { log: EventLog; buffer: WriteBuffer; queues: SessionQueues; meta: SessionMeta; hub: EventHub; waiters: OutputWaiters; runLog?: RunLog };

const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

export class EventSink {
  private readonly publish: (stamped: StampedEvent, json: string) => void;
  /** Token usage of the run in progress, not yet in the stored total: written once, at its runEnd. */
  private runUsage: Usage = NO_USAGE;

  constructor(private readonly parts: SinkParts) {
    this.publish = (stamped, json) => {
      parts.hub.publish(stamped.seq, stamped.type, json);
      parts.runLog?.observe(stamped);
    };
  }

  /** Stores the event (and everything queued before it) and publishes it before returning. */
  record(runId: string | undefined, event: AgentEvent, journal?: SqlToolJournal): void {
    this.defer(runId, event, journal);
    this.parts.buffer.flush();
  }

  /** Queues the event; it is stored, then published, at the write buffer's next flush. */
  defer(runId: string | undefined, event: AgentEvent, journal?: SqlToolJournal): void {
    const { log, buffer, queues, meta, waiters } = this.parts;
    log.append(event, runId, Date.now(), this.publish);
    if (event.type === "toolExecStart") journal?.markStarted(event.toolCallId);
    else if (event.type === "toolExecEnd") journal?.markEnded(event.toolCallId, event.result, event.isError);
    else if (event.type === "runEnd") {
      const evicted = queues.pushOutput(runId ?? crypto.randomUUID(), event.response);
      if (evicted > 0) meta.write("responsesEvicted", (meta.read<number>("responsesEvicted") ?? 0) + evicted);
      if (this.runUsage.totalTokens > 0 || this.runUsage.inputTokens > 0 || this.runUsage.outputTokens > 0) {
        meta.write("usage", this.usage());
        this.runUsage = NO_USAGE;
      }
      meta.delete("run");
      meta.write("lastActiveAt", Date.now());
      // The answer's waiters may read events next: everything of the run is stored first.
      buffer.flush();
      waiters.wakeAll();
    } else if (event.type === "messageEnd" && event.message.role === "assistant" && event.message.usage) {
      this.runUsage = addUsage(this.runUsage, event.message.usage);
    }
  }

  /** The session's token usage totals (shown in the snapshot): the stored sum plus the run in progress. */
  usage(): Usage {
    return addUsage(this.parts.meta.read<Usage>("usage") ?? NO_USAGE, this.runUsage);
  }

  /** A resumed run's earlier attempt stored these messages (after the run's start): their usage counts for it. */
  resumeUsage(messages: readonly AgentMessage[]): void {
    this.runUsage = NO_USAGE;
    for (const m of messages) if (m.role === "assistant" && m.usage) this.runUsage = addUsage(this.runUsage, m.usage);
  }
}

/** A running sum, no history scan; values that are not usage add nothing. */
function addUsage(total: Usage, usage: Usage): Usage {
  const add = readUsage(usage);
  if (!add) return total;
  return {
    inputTokens: total.inputTokens + add.inputTokens,
    outputTokens: total.outputTokens + add.outputTokens,
    totalTokens: total.totalTokens + add.totalTokens,
  };
}
