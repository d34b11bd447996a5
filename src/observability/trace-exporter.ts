/**
 * Sends finished spans to an OTLP/HTTP collector off the step's path: `add` only queues (bounded: past
 * MAX_QUEUED_SPANS the oldest are dropped and counted), and an export starts when a run's span ends
 * or a batch fills, handed to `defer` (the Durable Object's waitUntil) and never awaited by a run. One
 * export is in flight at a time; a failed or slow one is logged as one JSON line and its spans are dropped,
 * never retried into a growing backlog. The collector's URL and headers never reach a log line.
 */
import { encodeTraces, type OtlpResource } from "./otlp-json.ts";
import type { OtelExport } from "./otel-config.ts";
import type { Span } from "./run-tracer.ts";

/** Spans waiting at most; a dead collector costs memory up to this bound, never more. */
export const MAX_QUEUED_SPANS = 512;
/** Spans per export request: a long run sends in several requests rather than one huge body. */
export const EXPORT_BATCH_SPANS = 128;
/** A collector slower than this is given up on (the spans are dropped and the failure logged). */
export const EXPORT_TIMEOUT_MS = 10_000;

export type TraceExporterOptions = {
  target: OtelExport;
  resource: OtlpResource;
  defer: (work: Promise<unknown>) => void;
  fetch?: typeof fetch;
  log?: (line: string) => void;
};

export class TraceExporter {
  private queued: Span[] = [];
  private dropped = 0;
  private inFlight: Promise<void> | undefined;

  constructor(private readonly options: TraceExporterOptions) {}

  add(span: Span): void {
    this.queued.push(span);
    if (this.queued.length > MAX_QUEUED_SPANS) {
      const over = this.queued.length - MAX_QUEUED_SPANS;
      this.queued.splice(0, over);
      this.dropped += over;
    }
    const endsRun = span.attributes["gen_ai.operation.name"] === "invoke_agent";
    if (endsRun || this.queued.length >= EXPORT_BATCH_SPANS) this.kick();
  }

  /** Resolves when everything queued so far has been sent (or given up on); for tests and shutdown. */
  async flush(): Promise<void> {
    while (this.inFlight || this.queued.length > 0) {
      this.kick();
      await this.inFlight;
    }
  }

  private kick(): void {
    if (this.inFlight || this.queued.length === 0) return;
    const batch = this.queued.splice(0, EXPORT_BATCH_SPANS);
    const dropped = this.dropped;
    this.dropped = 0;
    this.inFlight = this.send(batch, dropped).finally(() => {
      this.inFlight = undefined;
      if (this.queued.length > 0) this.kick();
    });
    this.options.defer(this.inFlight);
  }

  private async send(batch: Span[], droppedBefore: number): Promise<void> {
    const { target, resource } = this.options;
    const doFetch = this.options.fetch ?? fetch;
    try {
      const response = await doFetch(target.tracesUrl, {
        method: "POST",
        headers: { ...target.headers, "content-type": "application/json" },
        body: encodeTraces(batch, resource),
        signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
      });
      // The body is not needed, but an unread body holds the connection.
      await response.body?.cancel();
      if (!response.ok) this.fail(`collector answered ${response.status}`, batch.length, droppedBefore);
      else if (droppedBefore > 0) this.fail("the span queue was full", 0, droppedBefore);
    } catch (err) {
      this.fail(err instanceof Error ? `${err.name}: ${err.message}` : String(err), batch.length, droppedBefore);
    }
  }

  private fail(reason: string, spans: number, droppedBefore: number): void {
    // Some runtimes put the URL in a network error's text; it may carry a token, so it never reaches a log.
    const url = this.options.target.tracesUrl;
    for (const secret of [url, new URL(url).origin, new URL(url).host]) reason = reason.split(secret).join("<collector>");
    const line = JSON.stringify({ event: "traceExportFailed", reason, spansLost: spans + droppedBefore });
    (this.options.log ?? ((l: string) => console.error(l)))(line);
  }
}
