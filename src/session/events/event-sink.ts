/**
 * The session's one event sink: it appends each event to the durable event log and, once the event's row
 * is stored, publishes it to live subscribers, the run log and the traces (stored before published).
 * `record` stores at once; `defer` (the loop's events) leaves the row with the step's writes
 * (step-writes.ts), stored after the step's LLM request has left. It decides nothing about runs: a run's
 * end (its answer kept unread, its usage, waking waiters) is the run's own (run/run.ts).
 * `publishUnstored` is for the one event that cannot wait for storage: the news that storage failed.
 */
import type { AgentEvent } from "../../core/index.ts";
import type { RunLog } from "../../observability/run-log.ts";
import type { SessionTracing } from "../../observability/session-tracing.ts";
import type { StampedEvent } from "../../wire/events.ts";
import type { StepWrites } from "../run/step-writes.ts";
import type { EventLog } from "./event-log.ts";
import type { LiveFanout } from "./live-fanout.ts";

type SinkParts = {
  log: EventLog;
  writes: StepWrites;
  hub: LiveFanout;
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

  /** Queues the event with the step's writes; it is published once they are stored. Returns its seq. */
  defer(runId: string | undefined, event: AgentEvent): number {
    const { log, hub, runLog, tracing } = this.parts;
    return log.append(event, runId, Date.now(), (stamped, json) => {
      hub.publish(stamped.seq, stamped.type, json);
      runLog?.observe(stamped);
      tracing?.observe(stamped);
    });
  }

  /**
   * Sends the event live only, marked `unstored` and without an SSE id (its seq repeats the last stored
   * one): storage failed, so it cannot be stored, nor replayed.
   */
  publishUnstored(runId: string | undefined, event: AgentEvent): void {
    const { log } = this.parts;
    const unstored = {
      ...event,
      unstored: true,
      seq: log.lastSeq,
      sessionId: log.sessionId,
      ts: Date.now(),
      ...(runId ? { runId } : {}),
    } as unknown as StampedEvent;
    this.parts.hub.publishUnstored(event.type, JSON.stringify(unstored));
  }
}
