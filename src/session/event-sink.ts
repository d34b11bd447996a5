/**
 * The session's one event sink. Every event (from the loop, the approval gate, run bookkeeping) goes
 * through `record`: appended to the durable log first, then the tool journal and run bookkeeping, then
 * fanned out to live SSE subscribers. A runEnd puts the run's answer on the output queue and clears the
 * run marker in the same synchronous block as its log append, so the two commit together.
 */
import type { AgentEvent } from "../core/index.ts";
import type { EventHub } from "./event-hub.ts";
import type { EventLog } from "./event-log.ts";
import type { OutputWaiters } from "./output-waiters.ts";
import type { SessionMeta } from "./session-meta.ts";
import type { SessionQueues } from "./session-queues.ts";
import type { SqlToolJournal } from "./tool-journal.ts";

type SinkParts = { log: EventLog; queues: SessionQueues; meta: SessionMeta; hub: EventHub; waiters: OutputWaiters };

export class EventSink {
  constructor(private readonly parts: SinkParts) {}

  record(runId: string | undefined, event: AgentEvent, journal?: SqlToolJournal): void {
    const { log, queues, meta, hub, waiters } = this.parts;
    const { stamped, json } = log.append(event, runId, Date.now());
    if (event.type === "toolExecStart") journal?.markStarted(event.toolCallId);
    else if (event.type === "toolExecEnd") journal?.markEnded(event.toolCallId, event.result, event.isError);
    else if (event.type === "runEnd") {
      queues.pushOutput(runId ?? crypto.randomUUID(), event.response);
      meta.delete("run");
      waiters.wakeAll();
    }
    hub.publish(stamped.seq, stamped.type, json);
  }
}
