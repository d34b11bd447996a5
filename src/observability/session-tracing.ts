/**
 * A session's tracing, wired from its env: a RunTracer folding the stamped events into spans and a
 * TraceExporter sending them to OTEL_EXPORTER_OTLP_ENDPOINT through `defer` (the Durable Object's
 * waitUntil), or nothing at all when the endpoint is unset. Built by the session loader; the event sink
 * calls `observe` after each event is stored, the approval gate calls `approvalDecided`.
 * Invariants: never throws and never awaits on the caller's path; a malformed setting is logged once per
 * isolate (naming the variable, never its value) and turns tracing off, never fails a run.
 */
import { readOtelConfig, type OtelExport } from "./otel-config.ts";
import { RunTracer, type ParentCall } from "./run-tracer.ts";
import { TraceExporter } from "./trace-exporter.ts";
import type { StampedEvent } from "../wire/events.ts";

export type SessionTracing = {
  observe(event: StampedEvent): void;
  approvalDecided(toolCallId: string, approved: boolean): void;
};

export type TracingEnv = { OTEL_EXPORTER_OTLP_ENDPOINT?: string; OTEL_EXPORTER_OTLP_HEADERS?: string };

/** The service name spans carry (`service.name`), and the agent's name in `invoke_agent <name>`. */
export const SERVICE_NAME = "edge-agent";

let configErrorLogged = false;

export function sessionTracing(
  env: TracingEnv,
  run: { provider: string; model: string; parent?: ParentCall },
  defer: (work: Promise<unknown>) => void,
  fetchImpl?: typeof fetch,
): SessionTracing | undefined {
  const target = exportTarget(env);
  if (!target) return undefined;
  const exporter = new TraceExporter({
    target,
    resource: { serviceName: SERVICE_NAME },
    defer,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  const tracer = new RunTracer(
    { agentName: SERVICE_NAME, provider: run.provider, model: run.model, ...(run.parent ? { parent: run.parent } : {}) },
    (span) => exporter.add(span),
  );
  return {
    observe: (event) => tracer.observe(event),
    approvalDecided: (toolCallId, approved) => tracer.approvalDecided(toolCallId, approved),
  };
}

function exportTarget(env: TracingEnv): OtelExport | undefined {
  const config = readOtelConfig(env);
  if (config.ok) return config.value;
  if (!configErrorLogged) {
    configErrorLogged = true;
    console.error(JSON.stringify({ event: "traceConfigInvalid", message: config.message }));
  }
  return undefined;
}
