import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { readOtelConfig } from "../../src/observability/otel-config.ts";
import { MAX_QUEUED_SPANS, TraceExporter } from "../../src/observability/trace-exporter.ts";
import type { Span } from "../../src/observability/run-tracer.ts";

type Received = {
  url: string;
  headers: IncomingMessage["headers"];
  // biome-ignore lint/suspicious/noExplicitAny: the OTLP JSON a test server received, read field by field
  body: any;
};

/** A local OTLP/HTTP receiver: records each request; answers `status`. */
async function startReceiver(status = 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      received.push({ url: req.url ?? "", headers: req.headers, body: JSON.parse(text) });
      res.writeHead(status, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function span(overrides: Partial<Span> = {}): Span {
  return {
    traceId: "a".repeat(32),
    spanId: "b".repeat(16),
    name: "invoke_agent edge-agent",
    kind: "internal",
    startMs: 1_700_000_000_000,
    endMs: 1_700_000_000_250,
    attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.usage.input_tokens": 12, ok: true, ratio: 0.5 },
    events: [],
    status: { code: "ok" },
    ...overrides,
  };
}

function exporterFor(endpoint: string, headers?: string, log?: (line: string) => void) {
  const config = readOtelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_HEADERS: headers });
  if (!config.ok || !config.value) throw new Error("bad config");
  const deferred: Promise<unknown>[] = [];
  const exporter = new TraceExporter({
    target: config.value,
    resource: { serviceName: "edge-agent" },
    defer: (p) => deferred.push(p),
    log,
  });
  return { exporter, deferred };
}

describe("TraceExporter", () => {
  it("posts a finished run's spans to the collector's /v1/traces as OTLP JSON, with the configured headers", async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const { exporter, deferred } = exporterFor(`${receiver.url}/otlp/`, "authorization=Bearer%20t0ken,x-team=agents");
    exporter.add(
      span({
        spanId: "c".repeat(16),
        parentSpanId: "b".repeat(16),
        name: "execute_tool add",
        kind: "client",
        attributes: { "gen_ai.operation.name": "execute_tool" },
      }),
    );
    expect(deferred).toHaveLength(0); // a child span alone waits for its run's end
    exporter.add(span());
    expect(deferred).toHaveLength(1); // handed to waitUntil, not awaited by the caller
    await exporter.flush();
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.url).toBe("/otlp/v1/traces");
    expect(request!.headers).toMatchObject({ authorization: "Bearer t0ken", "x-team": "agents", "content-type": "application/json" });
    const scope = request!.body.resourceSpans[0];
    expect(scope.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "edge-agent" } });
    const [tool, root] = scope.scopeSpans[0].spans;
    expect(tool).toMatchObject({ name: "execute_tool add", kind: 3, parentSpanId: "b".repeat(16) });
    expect(root).toMatchObject({
      traceId: "a".repeat(32),
      spanId: "b".repeat(16),
      kind: 1,
      startTimeUnixNano: "1700000000000000000",
      endTimeUnixNano: "1700000000250000000",
      status: { code: 1 },
    });
    expect(root.attributes).toEqual([
      { key: "gen_ai.operation.name", value: { stringValue: "invoke_agent" } },
      { key: "gen_ai.usage.input_tokens", value: { intValue: "12" } },
      { key: "ok", value: { boolValue: true } },
      { key: "ratio", value: { doubleValue: 0.5 } },
    ]);
  });

  it("logs a dead collector as one line without its address or headers, and never throws", async () => {
    const receiver = await startReceiver();
    await receiver.close(); // nothing listens on this port any more
    const lines: string[] = [];
    const { exporter } = exporterFor(receiver.url, "authorization=secret-value", (l) => lines.push(l));
    exporter.add(span());
    await exporter.flush();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ event: "traceExportFailed", spansLost: 1 });
    expect(lines[0]).not.toContain("secret-value");
    expect(lines[0]).not.toContain(receiver.url);
  });

  it("logs a collector's error status", async () => {
    const receiver = await startReceiver(503);
    closers.push(receiver.close);
    const lines: string[] = [];
    const { exporter } = exporterFor(receiver.url, undefined, (l) => lines.push(l));
    exporter.add(span());
    await exporter.flush();
    expect(JSON.parse(lines[0]!)).toMatchObject({ event: "traceExportFailed", reason: "collector answered 503" });
  });

  it("keeps at most MAX_QUEUED_SPANS waiting and counts what it dropped", async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const lines: string[] = [];
    const { exporter } = exporterFor(receiver.url, undefined, (l) => lines.push(l));
    // Child spans only queue (batches start at 128, one at a time), so a burst overfills the queue.
    for (let i = 0; i < MAX_QUEUED_SPANS * 2; i++)
      exporter.add(
        span({
          parentSpanId: "b".repeat(16),
          spanId: i.toString(16).padStart(16, "0"),
          attributes: { "gen_ai.operation.name": "execute_tool" },
        }),
      );
    await exporter.flush();
    const sent = receiver.received.reduce((n, r) => n + r.body.resourceSpans[0].scopeSpans[0].spans.length, 0);
    const lost = lines.reduce((n, l) => n + JSON.parse(l).spansLost, 0);
    expect(sent).toBeLessThanOrEqual(MAX_QUEUED_SPANS + 128);
    expect(sent + lost).toBe(MAX_QUEUED_SPANS * 2);
  });
});

describe("readOtelConfig", () => {
  it("is off without an endpoint", () => {
    expect(readOtelConfig({})).toEqual({ ok: true, value: undefined });
  });

  it("names a malformed header entry by position, never its text", () => {
    const result = readOtelConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example",
      OTEL_EXPORTER_OTLP_HEADERS: "a=1,Bearer sk-secret",
    });
    expect(result).toEqual({ ok: false, message: "OTEL_EXPORTER_OTLP_HEADERS entry 2 is not key=value" });
  });

  it("refuses an endpoint that is not an http(s) URL", () => {
    expect(readOtelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://x" }).ok).toBe(false);
    expect(readOtelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }).ok).toBe(false);
  });
});
