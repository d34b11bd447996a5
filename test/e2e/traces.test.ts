/**
 * Traces end to end: `wrangler dev` with OTEL_EXPORTER_OTLP_ENDPOINT pointed at an OTLP/HTTP receiver this
 * test starts (a node:http server on 127.0.0.1) and the mock OpenAI server. A run with a retried LLM call,
 * a tool call and an approval arrives as one trace shaped per the OpenTelemetry GenAI conventions; the
 * collector's headers come from OTEL_EXPORTER_OTLP_HEADERS; with the collector gone, runs still answer
 * and the failed export is logged without the collector's address.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockOpenAi, type MockOpenAiServer } from "../../support/mock-openai-server.ts";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";

type OtlpValue = { stringValue?: string; intValue?: string; boolValue?: boolean; doubleValue?: number };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: OtlpValue }[];
  events?: { name: string }[];
};
type Received = { headers: Record<string, string | string[] | undefined>; spans: OtlpSpan[] };

const attr = (span: OtlpSpan | undefined, key: string) => {
  const value = span?.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : (value?.boolValue ?? value?.doubleValue));
};

async function startReceiver(): Promise<{ url: string; port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (p: Buffer) => parts.push(p));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        received.push({ headers: req.headers, spans: body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)) });
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function until<T>(read: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("traces through wrangler dev to an OTLP receiver", () => {
  let llm: MockOpenAiServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dev: WranglerDev;

  beforeAll(async () => {
    llm = await startMockOpenAi();
    receiver = await startReceiver();
    dev = await startWranglerDev({
      vars: {
        OPENAI_API_KEY: "test-key",
        OPENAI_BASE_URL: llm.url,
        OPENAI_MODEL: "mock-model",
        MAX_RETRY_DELAY_MS: "20",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: "x-honeycomb-team=secret%20key,x-other=1",
      },
    });
  }, 90_000);
  afterAll(async () => {
    await dev?.stop();
    await receiver?.close();
    await llm?.close();
  });

  const call = async (path: string, init: { method?: string; key?: string; json?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    if (init.json !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${dev.url}${path}`, {
      method: init.method ?? "GET",
      headers,
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    });
    return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as Record<string, unknown>) };
  };

  async function runOnce(session: { id: string; key: string }, content: string): Promise<void> {
    expect((await call(`/v1/sessions/${session.id}/messages`, { method: "POST", key: session.key, json: { content } })).status).toBe(202);
    const answer = await call(`/v1/sessions/${session.id}/responses/next?waitMs=20000`, { key: session.key });
    expect(answer.status).toBe(200);
  }

  it("sends one trace per run: invoke_agent over chat (retries as events), execute_tool and await_approval", async () => {
    llm.enqueue(
      { toolCalls: [{ id: "call_t1", name: "getTime", arguments: { timezone: "UTC" } }] },
      { status: 500, errorMessage: "overloaded" },
      { text: "It is noon." },
    );
    const session = (await call("/v1/sessions", { method: "POST", json: { requireApproval: ["getTime"] } })).body as {
      id: string;
      key: string;
    };
    expect(
      (await call(`/v1/sessions/${session.id}/messages`, { method: "POST", key: session.key, json: { content: "time?" } })).status,
    ).toBe(202);
    await until(
      async () =>
        ((await call(`/v1/sessions/${session.id}`, { key: session.key })).body!.pendingApprovals as unknown[]).length > 0 || undefined,
      "the approval request",
    );
    expect(
      (await call(`/v1/sessions/${session.id}/tool-calls/call_t1/approval`, { method: "POST", key: session.key, json: { approve: true } }))
        .status,
    ).toBe(200);
    expect((await call(`/v1/sessions/${session.id}/responses/next?waitMs=20000`, { key: session.key })).status).toBe(200);

    const spans = await until(() => {
      const all = receiver.received
        .flatMap((r) => r.spans)
        .filter((s) => attr(s, "edge_agent.session.id") === session.id || s.name.startsWith("await_approval"));
      return all.some((s) => s.name.startsWith("invoke_agent")) ? all : undefined;
    }, "the run's spans");
    const root = spans.find((s) => s.name === "invoke_agent edge-agent")!;
    const chats = spans.filter((s) => s.name === "chat mock-model");
    const tool = spans.find((s) => s.name === "execute_tool getTime")!;
    const approval = spans.find((s) => s.name === "await_approval getTime")!;
    expect(root.parentSpanId ?? "").toBe("");
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    expect(chats.length).toBeGreaterThanOrEqual(2);
    for (const span of [...chats, tool]) expect(span.parentSpanId).toBe(root.spanId);
    expect(approval.parentSpanId).toBe(tool.spanId);
    expect(attr(root, "gen_ai.operation.name")).toBe("invoke_agent");
    expect(attr(root, "gen_ai.conversation.id")).toBe(session.id);
    expect(typeof attr(root, "edge_agent.run.id")).toBe("string");
    expect(attr(root, "gen_ai.usage.input_tokens")).toBeGreaterThan(0);
    expect(attr(chats[0], "gen_ai.operation.name")).toBe("chat");
    expect(attr(chats[0], "gen_ai.request.model")).toBe("mock-model");
    expect(attr(chats[0], "gen_ai.provider.name")).toBe("openai");
    expect(chats.some((c) => (c.events ?? []).some((e) => e.name === "gen_ai.llm.retry"))).toBe(true);
    expect(chats.every((c) => typeof attr(c, "gen_ai.usage.output_tokens") === "number" || (c.events ?? []).length > 0)).toBe(true);
    expect(attr(tool, "gen_ai.operation.name")).toBe("execute_tool");
    expect(attr(tool, "gen_ai.tool.name")).toBe("getTime");
    expect(attr(tool, "gen_ai.tool.call.id")).toBe("call_t1");
    expect(attr(approval, "edge_agent.approval.approved")).toBe(true);
    const headers = receiver.received.at(-1)!.headers;
    expect(headers["x-honeycomb-team"]).toBe("secret key");
    expect(headers["content-type"]).toBe("application/json");
  });

  it("traces a sub-agent's run inside the parent's call span, in the parent's trace", async () => {
    llm.enqueue(
      { toolCalls: [{ id: "call_r1", name: "researcher", arguments: { task: "what time is it?" } }] },
      { text: "It is noon." },
      { text: "The researcher says noon." },
    );
    const session = (await call("/v1/sessions", { method: "POST" })).body as { id: string; key: string };
    await runOnce(session, "ask the researcher");
    const found = await until(() => {
      const spans = receiver.received.flatMap((r) => r.spans);
      const call = spans.find((s) => s.name === "execute_tool researcher" && attr(s, "edge_agent.session.id") === session.id);
      const childRoot = call && spans.find((s) => s.name.startsWith("invoke_agent") && s.parentSpanId === call.spanId);
      return call && childRoot ? { call, childRoot } : undefined;
    }, "the parent's call span and the child's run span");
    expect(found.childRoot.traceId).toBe(found.call.traceId);
    expect(attr(found.childRoot, "edge_agent.session.id")).not.toBe(session.id);
  });

  it("gives each run its own trace", async () => {
    llm.enqueue({ text: "first" }, { text: "second" });
    const session = (await call("/v1/sessions", { method: "POST" })).body as { id: string; key: string };
    await runOnce(session, "one");
    await runOnce(session, "two");
    const roots = await until(() => {
      const found = receiver.received
        .flatMap((r) => r.spans)
        .filter((s) => s.name.startsWith("invoke_agent") && attr(s, "edge_agent.session.id") === session.id);
      return found.length === 2 ? found : undefined;
    }, "two runs' root spans");
    expect(roots[0]!.traceId).not.toBe(roots[1]!.traceId);
    expect(roots[0]!.traceId).toBe(String(attr(roots[0], "edge_agent.run.id")).replaceAll("-", ""));
  });

  it("leaves runs unharmed when the collector is gone, and logs the failure without its address", async () => {
    await receiver.close();
    llm.enqueue({ text: "still answered" });
    const session = (await call("/v1/sessions", { method: "POST" })).body as { id: string; key: string };
    const started = Date.now();
    await runOnce(session, "anyone there?");
    expect(Date.now() - started).toBeLessThan(5_000);
    const line = await until(
      () =>
        dev
          .logs()
          .split("\n")
          .find((l) => l.includes("traceExportFailed")),
      "the export failure line",
    );
    expect(line).not.toContain(String(receiver.port));
    expect(line).not.toContain("secret");
  });
});
