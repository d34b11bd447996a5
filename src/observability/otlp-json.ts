/**
 * Spans as an OTLP/HTTP JSON export request (`POST …/v1/traces`, opentelemetry-proto's JSON mapping:
 * hex trace and span ids, int64 times as decimal strings, enum values as numbers). Pure: the exporter
 * sends what this returns. Hand-written because the protocol's JSON is this small, where the
 * OpenTelemetry SDK and its OTLP exporter would add far more to the Worker bundle than they save here.
 */
import type { Span, SpanAttributes } from "./run-tracer.ts";

export type OtlpResource = { serviceName: string; serviceVersion?: string };

type AnyValue = { stringValue: string } | { boolValue: boolean } | { intValue: string } | { doubleValue: number };
type KeyValue = { key: string; value: AnyValue };

const SPAN_KIND = { internal: 1, client: 3 } as const;
const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const;

export function encodeTraces(spans: readonly Span[], resource: OtlpResource, scopeName = "edge-agent"): string {
  const resourceAttributes: SpanAttributes = { "service.name": resource.serviceName };
  if (resource.serviceVersion) resourceAttributes["service.version"] = resource.serviceVersion;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: keyValues(resourceAttributes) },
        scopeSpans: [
          {
            scope: { name: scopeName },
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: SPAN_KIND[span.kind],
              startTimeUnixNano: nanos(span.startMs),
              endTimeUnixNano: nanos(span.endMs),
              attributes: keyValues(span.attributes),
              events: span.events.map((e) => ({ timeUnixNano: nanos(e.timeMs), name: e.name, attributes: keyValues(e.attributes) })),
              status: { code: STATUS_CODE[span.status.code], ...(span.status.message ? { message: span.status.message } : {}) },
            })),
          },
        ],
      },
    ],
  });
}

function keyValues(attributes: SpanAttributes): KeyValue[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

function anyValue(value: string | number | boolean): AnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

/** Milliseconds since the epoch as the decimal nanoseconds OTLP wants (beyond 2^53, so as text). */
function nanos(ms: number): string {
  return `${BigInt(Math.round(ms)) * 1_000_000n}`;
}
