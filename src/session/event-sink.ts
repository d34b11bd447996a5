/**
 * The session's one event sink. Every event (from the loop, the approval gate, run bookkeeping) is
 * appended to the durable event log, then fanned out to live subscribers (stored before published). A
 * runEnd also puts the run's answer on the output queue and ends the run record (its usage joins the total,
 * its row goes) in the same synchronous block as its log row, so they commit together; then takeResponse's
 * waiters wake. Called by the run driver (the loop's events), the approval gate and the MCP attachment.
 */
import type { AgentEvent } from "../core/index.ts";
import type { RunLog } from "../observability/run-log.ts";
import type { LiveFanout } from "./live-fanout.ts";
import type { EventLog } from "./event-log.ts";
import type { OutputWaiters } from "./output-waiters.ts";
import type { RunRecord } from "./run-record.ts";
import type { SessionMeta } from "./session-meta.ts";
import type { SessionQueues } from "./session-queues.ts";

type SinkParts = { log: EventLog; queues: SessionQueues; meta: SessionMeta; record: RunRecord; hub: LiveFanout; waiters: OutputWaiters; runLog?: RunLog };

export class EventSink {
  constructor(private readonly parts: SinkParts) {}

  /** Stores the event, then publishes it. */
  record(runId: string | undefined, event: AgentEvent): void {
    const { log, queues, meta, record, hub, waiters, runLog } = this.parts;
    const { stamped, json } = log.append(event, runId, Date.now());
    if (event.type === "runEnd") {
      const evicted = queues.pushOutput(runId ?? crypto.randomUUID(), event.response);
      if (evicted > 0) meta.write("responsesEvicted", (meta.read<number>("responsesEvicted") ?? 0) + evicted);
      record.end();
      meta.write("lastActiveAt", Date.now());
    }
    hub.publish(stamped.seq, stamped.type, json);
    runLog?.observe(stamped);
    if (event.type === "runEnd") waiters.wakeAll();
  }
}
