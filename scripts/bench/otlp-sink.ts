/**
 * A local OTLP/HTTP receiver for the bench's tracing-on step: accepts `POST /v1/traces`, counts the spans
 * (so the headline shows tracing really was on) and answers 200 at once, as a healthy collector would.
 * Started and closed by run.ts on 127.0.0.1.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type OtlpSink = { url: string; spans(): number; close(): Promise<void> };

export async function startOtlpSink(): Promise<OtlpSink> {
  let spans = 0;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (p: Buffer) => parts.push(p));
    req.on("end", () => {
      try {
        const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
        for (const r of body.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) spans += s.spans?.length ?? 0;
      } catch {
        // Not ours to judge: the bench only counts what parses.
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
