/**
 * The session's one event sink. Every event (from the loop, the approval gate, run bookkeeping) is
 * appended to the durable event log, then fanned out to live subscribers once its row is stored (stored
 * before published). `record` stores at once; `defer` (the loop's events) leaves the row with the step's
 * writes (step-writes.ts), stored after the step's LLM request has left. A runEnd also puts the run's
 * answer on the output queue and ends the run record (its usage joins the total, its row goes) in the
 * same synchronous block as storing its log row, so they commit together; then takeResponse's waiters
 * wake. Called by the run driver (the loop's events), the approval gate and the MCP attachment.
 */
import type { AgentEvent } from "../../core/index.ts";
import type { RunLog } from "../../observability/run-log.ts";
import type { SessionTracing } from "../../observability/session-tracing.ts";
import type { LiveFanout } from "./live-fanout.ts";
import type { EventLog } from "./event-log.ts";
import type { OutputWaiters } from "../run/output-waiters.ts";
import type { RunRecord } from "../run/run-record.ts";
import type { SessionMeta } from "../storage/session-meta.ts";
import type { SessionQueues } from "../storage/session-queues.ts";
import type { StepWrites } from "../run/step-writes.ts";

type SinkParts = {
  log: EventLog;
  writes: StepWrites;
  queues: SessionQueues;
  meta: SessionMeta;
  record: RunRecord;
  hub: LiveFanout;
  waiters: OutputWaiters;
  runLog?: RunLog;
  /** Spans of the runs (observability/session-tracing.ts), when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing?: SessionTracing | undefined;
};

export class EventSink {
  constructor(private readonly parts: SinkParts) {}

  /** Stores the event (with every write queued before it), then publishes it. */
  record(runId: string | undefined, event: AgentEvent): void {
    this.defer(runId, event);
    this.parts.writes.flush();
  }

  /** Queues the event with the step's writes; it is published once they are stored. */
  defer(runId: string | undefined, event: AgentEvent): void {
    const { log, writes, queues, meta, record, hub, waiters, runLog, tracing } = this.parts;
    log.append(event, runId, Date.now(), (stamped, json) => {
      hub.publish(stamped.seq, stamped.type, json);
      runLog?.observe(stamped);
      tracing?.observe(stamped);
    });
    if (event.type !== "runEnd") return;
    const evicted = queues.pushOutput(runId ?? crypto.randomUUID(), event.response);
    if (evicted > 0) meta.write("responsesEvicted", (meta.read<number>("responsesEvicted") ?? 0) + evicted);
    record.end();
    meta.write("lastActiveAt", Date.now());
    // The run's rows are stored with its end, before anyone waiting for the answer reads them.
    writes.flush();
    waiters.wakeAll();
  }
}
