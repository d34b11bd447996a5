/**
 * Spans of a session's runs, folded from its stamped events as the run log folds its lines: one trace per
 * run (the trace id is the run id's hex, so a run resumed after a restart continues the same trace), an
 * `invoke_agent` span per run, a `chat` span per LLM call (retries as its span events), an `execute_tool`
 * span per tool call and an approval-wait span inside it; a sub-agent's child session puts its runs inside
 * the parent's call span (same trace; a call's span id derives from run and call id, so the child can name
 * it). Names and attributes follow the OpenTelemetry GenAI semantic conventions. Finished spans go to `onSpan`; never throws; keeps only the open run's spans.
 */
import type { StampedEvent } from "../wire/events.ts";
import type { Usage } from "../core/index.ts";

export type SpanAttributes = Record<string, string | number | boolean>;
export type SpanEvent = { name: string; timeMs: number; attributes: SpanAttributes };

export type Span = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: "internal" | "client";
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  events: SpanEvent[];
  status: { code: "unset" | "ok" | "error"; message?: string };
};

/** A span still open: ended by a later event. */
type OpenSpan = Omit<Span, "endMs">;

type OpenRun = { root: OpenSpan; chat?: OpenSpan; tools: Map<string, OpenSpan>; approvals: Map<string, OpenSpan>; usage: Usage };

/** The tool call a sub-agent's child session serves: its runs become spans inside that call's span. */
export type ParentCall = { runId: string; toolCallId: string };

export type RunTracerOptions = { agentName: string; provider: string; model: string; parent?: ParentCall };

export class RunTracer {
  private run: OpenRun | undefined;

  constructor(
    private readonly options: RunTracerOptions,
    private readonly onSpan: (span: Span) => void,
  ) {}

  observe(event: StampedEvent): void {
    try {
      this.fold(event);
    } catch {
      // Tracing must never disturb a run.
    }
  }

  /** An approval was answered (the decision carries no event of its own): its wait span ends now. */
  approvalDecided(toolCallId: string, approved: boolean, ts = Date.now()): void {
    const span = this.run?.approvals.get(toolCallId);
    if (!span || !this.run) return;
    this.run.approvals.delete(toolCallId);
    span.attributes["edge_agent.approval.approved"] = approved;
    this.finish(span, ts);
  }

  private fold(event: StampedEvent): void {
    if (event.type === "runStart") return this.open(event, false);
    if (!event.runId) return; // an event outside any run has no trace
    // A run resumed after a restart sends no runStart: its first event opens its (resumed) root span.
    if (!this.run || this.run.root.attributes["edge_agent.run.id"] !== event.runId) this.open(event, true);
    const run = this.run!;
    switch (event.type) {
      case "messageDelta":
        return;
      case "messageStart":
        this.closeChat(event.ts, { code: "error", message: "superseded by a new LLM call" });
        run.chat = this.child(run, `chat ${this.options.model}`, "client", event.ts, {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": this.options.provider,
          "gen_ai.request.model": this.options.model,
        });
        return;
      case "llmRetry": {
        const span = (run.chat ??= this.child(run, `chat ${this.options.model}`, "client", event.ts, {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": this.options.model,
        }));
        span.events.push({
          name: "gen_ai.llm.retry",
          timeMs: event.ts,
          attributes: { "edge_agent.retry": event.retry, "edge_agent.retry.delay_ms": event.delayMs, "error.message": event.message },
        });
        return;
      }
      case "messageEnd": {
        const message = event.message;
        if (message.role !== "assistant" || !run.chat) return;
        const span = run.chat;
        if (message.model) span.attributes["gen_ai.response.model"] = message.model;
        span.attributes["gen_ai.response.finish_reasons"] = message.stopReason;
        if (message.usage) {
          span.attributes["gen_ai.usage.input_tokens"] = message.usage.inputTokens;
          span.attributes["gen_ai.usage.output_tokens"] = message.usage.outputTokens;
          addUsage(run.usage, message.usage);
        }
        this.closeChat(event.ts, message.errorMessage ? { code: "error", message: message.errorMessage } : { code: "ok" });
        return;
      }
      case "messageAbandoned":
        this.closeChat(event.ts, { code: "error", message: event.reason });
        return;
      case "error":
        this.closeChat(event.ts, { code: "error", message: event.message });
        run.root.events.push({ name: "exception", timeMs: event.ts, attributes: { "exception.message": event.message } });
        return;
      case "toolExecStart":
        run.tools.set(event.toolCallId, {
          ...this.child(run, `execute_tool ${event.toolName}`, "internal", event.ts, {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.toolName,
            "gen_ai.tool.call.id": event.toolCallId,
            "gen_ai.tool.type": "function",
          }),
          spanId: toolCallSpanId(event.runId ?? "", event.toolCallId),
        });
        return;
      case "toolApprovalRequired": {
        const parent = run.tools.get(event.toolCallId) ?? run.root;
        run.approvals.set(event.toolCallId, {
          ...this.span(parent.traceId, `await_approval ${event.toolName}`, "internal", event.ts, {
            "gen_ai.tool.name": event.toolName,
            "gen_ai.tool.call.id": event.toolCallId,
          }),
          parentSpanId: parent.spanId,
        });
        return;
      }
      case "toolExecUpdate": {
        // An update means the call runs: an approval still open was granted (its decision was not observed here).
        this.approvalDecided(event.toolCallId, true, event.ts);
        return;
      }
      case "toolExecEnd": {
        this.approvalDecided(event.toolCallId, !event.isError, event.ts);
        const span = run.tools.get(event.toolCallId);
        if (!span) return;
        run.tools.delete(event.toolCallId);
        if (event.result.usage) {
          span.attributes["gen_ai.usage.input_tokens"] = event.result.usage.inputTokens;
          span.attributes["gen_ai.usage.output_tokens"] = event.result.usage.outputTokens;
        }
        if (event.isError) {
          span.attributes["error.type"] = "tool_error";
          span.status = { code: "error", message: firstText(event.result.content) };
        } else span.status = { code: "ok" };
        this.finish(span, event.ts);
        return;
      }
      case "runEnd": {
        this.closeChat(event.ts, { code: "error", message: "the run ended during this LLM call" });
        for (const [id] of run.approvals) this.approvalDecided(id, false, event.ts);
        for (const span of run.tools.values())
          this.finish({ ...span, status: { code: "error", message: "the run ended before the tool" } }, event.ts);
        const root = run.root;
        root.attributes["gen_ai.usage.input_tokens"] = run.usage.inputTokens;
        root.attributes["gen_ai.usage.output_tokens"] = run.usage.outputTokens;
        root.attributes["edge_agent.stop_reason"] = event.stopReason;
        const failed = event.stopReason === "error" || event.response.errorMessage !== undefined;
        root.status = failed ? { code: "error", message: event.response.errorMessage ?? event.stopReason } : { code: "ok" };
        this.run = undefined;
        this.finish(root, event.ts);
        return;
      }
      case "contextTrimmed":
        run.root.events.push({
          name: "edge_agent.context_trimmed",
          timeMs: event.ts,
          attributes: { "edge_agent.omitted_messages": event.omittedMessages },
        });
        return;
      case "modelFallback":
        run.root.events.push({
          name: "edge_agent.model_fallback",
          timeMs: event.ts,
          attributes: { "edge_agent.fallback.from": event.from, "edge_agent.fallback.to": event.to, "error.message": event.reason },
        });
        return;
      case "budgetExceeded":
        run.root.events.push({
          name: "edge_agent.budget_exceeded",
          timeMs: event.ts,
          attributes: {
            "edge_agent.budget.scope": event.scope,
            "edge_agent.budget.limit": event.limit,
            "edge_agent.budget.used": event.used,
          },
        });
        return;
      case "guardrailTripped":
        run.root.events.push({
          name: "edge_agent.guardrail_tripped",
          timeMs: event.ts,
          attributes: { "edge_agent.guardrail": event.guardrail, "edge_agent.guardrail.stage": event.stage },
        });
        return;
      case "contextCompacted":
        run.root.events.push({
          name: "edge_agent.context_compacted",
          timeMs: event.ts,
          attributes: {
            "edge_agent.summarized_messages": event.summarizedMessages,
            "edge_agent.tokens_before": event.tokensBefore,
            "edge_agent.tokens_after": event.tokensAfter,
          },
        });
        return;
      case "scheduleFired":
      case "scheduleRefused":
        return; // a session event between runs: it queues a message (or not), the run it starts has its own span
      case "mcpAuthRequired":
      case "mcpToolsChanged":
      case "mcpElicitation":
        run.root.events.push({ name: `edge_agent.${event.type}`, timeMs: event.ts, attributes: { "edge_agent.mcp.server": event.server } });
        return;
      default:
        event satisfies never;
    }
  }

  private open(event: StampedEvent, resumed: boolean): void {
    const parent = this.options.parent;
    const traceId = traceIdOf(parent?.runId ?? event.runId ?? crypto.randomUUID());
    const root = this.span(traceId, `invoke_agent ${this.options.agentName}`, "internal", event.ts, {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": this.options.agentName,
      "gen_ai.provider.name": this.options.provider,
      "gen_ai.request.model": this.options.model,
      "gen_ai.conversation.id": event.sessionId,
      "edge_agent.session.id": event.sessionId,
      "edge_agent.run.id": event.runId ?? "",
      "edge_agent.run.resumed": resumed,
    });
    if (parent) root.parentSpanId = toolCallSpanId(parent.runId, parent.toolCallId);
    this.run = { root, tools: new Map(), approvals: new Map(), usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } };
  }

  private closeChat(ts: number, status: Span["status"]): void {
    const chat = this.run?.chat;
    if (!chat || !this.run) return;
    this.run.chat = undefined;
    if (chat.status.code === "unset") chat.status = status;
    this.finish(chat, ts);
  }

  private child(run: OpenRun, name: string, kind: Span["kind"], startMs: number, attributes: SpanAttributes): OpenSpan {
    return {
      ...this.span(run.root.traceId, name, kind, startMs, {
        ...attributes,
        "edge_agent.session.id": String(run.root.attributes["edge_agent.session.id"]),
      }),
      parentSpanId: run.root.spanId,
    };
  }

  private span(traceId: string, name: string, kind: Span["kind"], startMs: number, attributes: SpanAttributes): OpenSpan {
    return { traceId, spanId: randomHex(8), name, kind, startMs, attributes, events: [], status: { code: "unset" } };
  }

  private finish(span: OpenSpan, endMs: number): void {
    this.onSpan({ ...span, endMs: Math.max(endMs, span.startMs) });
  }
}

/** A run id is a UUID: its 32 hex digits are a valid trace id, the same whichever isolate resumes the run. */
export function traceIdOf(runId: string): string {
  const hex = runId.replace(/-/g, "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) && !/^0+$/.test(hex) ? hex : randomHex(16);
}

/**
 * A tool call's span id, derived from its run and call id (64-bit FNV-1a), so a sub-agent's child session
 * can name its parent span without being told it. Never all zeros (invalid in OTLP).
 */
export function toolCallSpanId(runId: string, toolCallId: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(`${runId}\n${toolCallId}`))
    hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return (hash === 0n ? 1n : hash).toString(16).padStart(16, "0");
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function firstText(content: readonly { type: string; text?: string }[]): string {
  const text = content.find((c) => c.type === "text")?.text ?? "tool error";
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function addUsage(total: Usage, usage: Usage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.totalTokens += usage.totalTokens;
}
