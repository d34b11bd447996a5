import { describe, expect, it } from "vitest";
import { RunTracer, toolCallSpanId, traceIdOf, type Span } from "../../src/observability/run-tracer.ts";
import type { StampedEvent } from "../../src/wire/events.ts";
import type { AgentEvent } from "../../src/core/index.ts";

const RUN = "0b8f2a4e-3c1d-4e5f-9a6b-7c8d9e0f1a2b";
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

function tracerWith(spans: Span[]) {
  return new RunTracer({ agentName: "edge-agent", provider: "openai", model: "gpt-test" }, (s) => spans.push(s));
}

function feed(tracer: RunTracer, events: [number, AgentEvent][], runId = RUN) {
  events.forEach(([ts, event], i) => tracer.observe({ ...event, seq: i + 1, sessionId: "s_1", runId, ts } as StampedEvent));
}

const toolCallTurn: [number, AgentEvent][] = [
  [1000, { type: "runStart" }],
  [1001, { type: "messageStart", role: "assistant" }],
  [
    1050,
    {
      type: "messageEnd",
      message: {
        role: "assistant",
        content: [{ type: "toolCall", id: "c1", name: "add", arguments: {} }],
        stopReason: "toolUse",
        model: "gpt-test-2",
        usage,
        timestamp: 1050,
      },
    },
  ],
  [1051, { type: "toolExecStart", toolCallId: "c1", toolName: "add", arguments: {} }],
  [
    1060,
    {
      type: "toolExecEnd",
      toolCallId: "c1",
      toolName: "add",
      result: { content: [{ type: "text", text: "3" }], details: {}, terminate: false },
      isError: false,
    },
  ],
  [1061, { type: "messageStart", role: "assistant" }],
  [1062, { type: "llmRetry", retry: 1, delayMs: 20, message: "HTTP 500" }],
  [
    1100,
    {
      type: "messageEnd",
      message: { role: "assistant", content: [{ type: "text", text: "3" }], stopReason: "stop", usage, timestamp: 1100 },
    },
  ],
  [
    1101,
    {
      type: "runEnd",
      response: { role: "assistant", content: [{ type: "text", text: "3" }], stopReason: "stop", timestamp: 1100 },
      stopReason: "stop",
    },
  ],
];

describe("RunTracer", () => {
  it("makes one trace per run, keyed by the run id, with the run as the root span", () => {
    const spans: Span[] = [];
    feed(tracerWith(spans), toolCallTurn);
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf(RUN)]));
    expect(root).toMatchObject({ name: "invoke_agent edge-agent", startMs: 1000, endMs: 1101, status: { code: "ok" } });
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.conversation.id": "s_1",
      "edge_agent.run.id": RUN,
      "gen_ai.usage.input_tokens": 20,
      "gen_ai.usage.output_tokens": 10,
    });
    expect(spans.filter((s) => s !== root).every((s) => s.parentSpanId === root.spanId)).toBe(true);
  });

  it("gives each LLM call a chat span with its model, usage and retries", () => {
    const spans: Span[] = [];
    feed(tracerWith(spans), toolCallTurn);
    const chats = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    expect(chats.map((c) => [c.name, c.kind, c.startMs, c.endMs])).toEqual([
      ["chat gpt-test", "client", 1001, 1050],
      ["chat gpt-test", "client", 1061, 1100],
    ]);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.request.model": "gpt-test",
      "gen_ai.response.model": "gpt-test-2",
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.response.finish_reasons": "toolUse",
    });
    expect(chats[1]!.events).toEqual([
      {
        name: "gen_ai.llm.retry",
        timeMs: 1062,
        attributes: { "edge_agent.retry": 1, "edge_agent.retry.delay_ms": 20, "error.message": "HTTP 500" },
      },
    ]);
  });

  it("gives each tool call an execute_tool span named for the tool, with its call id", () => {
    const spans: Span[] = [];
    feed(tracerWith(spans), toolCallTurn);
    const tool = spans.find((s) => s.attributes["gen_ai.operation.name"] === "execute_tool")!;
    expect(tool).toMatchObject({ name: "execute_tool add", startMs: 1051, endMs: 1060, status: { code: "ok" } });
    expect(tool.attributes).toMatchObject({ "gen_ai.tool.name": "add", "gen_ai.tool.call.id": "c1", "gen_ai.tool.type": "function" });
  });

  it("marks a failed tool call and a failed run as errors", () => {
    const spans: Span[] = [];
    feed(tracerWith(spans), [
      [1, { type: "runStart" }],
      [2, { type: "toolExecStart", toolCallId: "c1", toolName: "boom", arguments: {} }],
      [
        3,
        {
          type: "toolExecEnd",
          toolCallId: "c1",
          toolName: "boom",
          result: { content: [{ type: "text", text: "it broke" }], details: {}, terminate: false },
          isError: true,
        },
      ],
      [4, { type: "messageStart", role: "assistant" }],
      [5, { type: "error", message: "LLM 401" }],
      [
        6,
        {
          type: "runEnd",
          response: { role: "assistant", content: [], stopReason: "error", errorMessage: "LLM 401", timestamp: 6 },
          stopReason: "error",
        },
      ],
    ]);
    expect(spans.find((s) => s.name === "execute_tool boom")!.status).toEqual({ code: "error", message: "it broke" });
    expect(spans.find((s) => s.name.startsWith("chat"))!.status).toEqual({ code: "error", message: "LLM 401" });
    expect(spans.find((s) => s.parentSpanId === undefined)!.status).toEqual({ code: "error", message: "LLM 401" });
  });

  it("times an approval wait inside its tool call's span, ended by the decision", () => {
    const spans: Span[] = [];
    const tracer = tracerWith(spans);
    feed(tracer, [
      [1, { type: "runStart" }],
      [2, { type: "toolExecStart", toolCallId: "c1", toolName: "pay", arguments: {} }],
      [3, { type: "toolApprovalRequired", toolCallId: "c1", toolName: "pay", arguments: {} }],
    ]);
    tracer.approvalDecided("c1", true, 40);
    const wait = spans.find((s) => s.name === "await_approval pay")!;
    expect(wait).toMatchObject({ startMs: 3, endMs: 40, attributes: { "edge_agent.approval.approved": true } });
    feed(tracer, [
      [
        41,
        { type: "toolExecEnd", toolCallId: "c1", toolName: "pay", result: { content: [], details: {}, terminate: false }, isError: false },
      ],
    ]);
    expect(wait.parentSpanId).toBe(spans.find((s) => s.name === "execute_tool pay")!.spanId);
  });

  it("continues a resumed run's trace without a runStart", () => {
    const spans: Span[] = [];
    feed(tracerWith(spans), toolCallTurn.slice(5));
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    expect(root.traceId).toBe(traceIdOf(RUN));
    expect(root.attributes["edge_agent.run.resumed"]).toBe(true);
  });

  it("puts a sub-agent's run inside the parent's call span, in the parent's trace", () => {
    const parentSpans: Span[] = [];
    feed(tracerWith(parentSpans), toolCallTurn);
    const call = parentSpans.find((s) => s.name === "execute_tool add")!;
    const childSpans: Span[] = [];
    const child = new RunTracer(
      { agentName: "edge-agent", provider: "openai", model: "gpt-test", parent: { runId: RUN, toolCallId: "c1" } },
      (s) => childSpans.push(s),
    );
    feed(child, toolCallTurn, "7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b");
    const childRoot = childSpans.find((s) => s.name === "invoke_agent edge-agent")!;
    expect(call.spanId).toBe(toolCallSpanId(RUN, "c1"));
    expect(childRoot.parentSpanId).toBe(call.spanId);
    expect(new Set(childSpans.map((s) => s.traceId))).toEqual(new Set([call.traceId]));
    expect(childRoot.attributes["edge_agent.run.id"]).toBe("7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b");
  });
});
