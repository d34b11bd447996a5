/**
 * The session's one event sink. Every event (from the loop, the approval gate, run bookkeeping) goes
 * through `record`: appended to the durable log first, then the tool journal and run bookkeeping, then
 * fanned out to live SSE subscribers. A runEnd puts the run's answer on the output queue and clears the
 * run marker in the same synchronous block as its log append, so the two commit together.
 */
import { readUsage, type AgentEvent, type Usage } from "../core/index.ts";
import type { EventHub } from "./event-hub.ts";
import type { EventLog } from "./event-log.ts";
import type { OutputWaiters } from "./output-waiters.ts";
import type { SessionMeta } from "./session-meta.ts";
import type { SessionQueues } from "./session-queues.ts";
import type { SqlToolJournal } from "./tool-journal.ts";
import type { RunLog } from "../observability/run-log.ts";

type SinkParts = { log: EventLog; queues: SessionQueues; meta: SessionMeta; hub: EventHub; waiters: OutputWaiters; runLog?: RunLog };

export class EventSink {
  constructor(private readonly parts: SinkParts) {}

  record(runId: string | undefined, event: AgentEvent, journal?: SqlToolJournal): void {
    const { log, queues, meta, hub, waiters } = this.parts;
    const { stamped, json } = log.append(event, runId, Date.now());
    if (event.type === "toolExecStart") journal?.markStarted(event.toolCallId);
    else if (event.type === "toolExecEnd") journal?.markEnded(event.toolCallId, event.result, event.isError);
    else if (event.type === "runEnd") {
      const evicted = queues.pushOutput(runId ?? crypto.randomUUID(), event.response);
      if (evicted > 0) meta.write("responsesEvicted", (meta.read<number>("responsesEvicted") ?? 0) + evicted);
      meta.delete("run");
      meta.write("lastActiveAt", Date.now());
      waiters.wakeAll();
    } else if (event.type === "messageEnd" && event.message.role === "assistant" && event.message.usage) {
      addUsage(meta, event.message.usage);
    }
    hub.publish(stamped.seq, stamped.type, json);
    this.parts.runLog?.observe(stamped);
  }
}

/** The session's token usage totals (shown in the snapshot), kept as a running sum: no history scan. */
function addUsage(meta: SessionMeta, usage: Usage): void {
  const add = readUsage(usage);
  if (!add) return;
  const total = meta.read<Usage>("usage") ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  meta.write("usage", {
    inputTokens: total.inputTokens + add.inputTokens,
    outputTokens: total.outputTokens + add.outputTokens,
    totalTokens: total.totalTokens + add.totalTokens,
  });
}
