/**
 * The AI SDK UI message stream protocol (v1) as seen from this runtime: the chunk types `useChat` reads,
 * and a translator from the session's events to chunks. Pure and runtime-agnostic; the /chat route
 * feeds it the stamped events of one run and writes each chunk as an SSE `data:` line.
 * Invariants: text parts open before their deltas and close before a step ends; every tool part starts
 * with tool-input-available; a run's end yields finish-step (if open), then error (if it failed), then finish.
 */
import type { StopReason } from "../core/index.ts";
import type { AgentEvent } from "../wire/events.ts";

export type UiFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";

export type UiMessageChunk =
  | { type: "start"; messageId?: string }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "reset-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown; dynamic: true }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | { type: "tool-output-available"; toolCallId: string; output: unknown; dynamic: true; preliminary?: boolean }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; dynamic: true }
  | {
      type: "data-notice";
      data: { level: "error" | "warning" | "info" | "retry"; message: string; authorizationUrl?: string };
      transient: true;
    }
  | {
      type: "data-mcp-elicitation";
      id: string;
      data: { elicitationId: string; server: string; message: string; requestedSchema: Record<string, unknown> };
    }
  | { type: "error"; errorText: string }
  | { type: "finish"; finishReason: UiFinishReason };

const FINISH_REASONS: Record<StopReason, UiFinishReason> = {
  stop: "stop",
  length: "length",
  toolUse: "tool-calls",
  tool_use_terminated: "tool-calls",
  aborted: "other",
  error: "error",
  max_steps: "other",
  budget_exceeded: "other",
  guardrail: "content-filter",
};

/** Translates one run's events; keep one per response stream. */
export class UiMessageChunker {
  private stepOpen = false;
  private textId: string | undefined;
  private texts = 0;
  private readonly announced = new Set<string>();

  /**
   * `continues`: the answer extends the client's last assistant message (after approvals), so no new id,
   * and the tool calls that message already shows (`knownToolCallIds`) are updated, not announced again.
   */
  constructor(
    private readonly messageId: string,
    private readonly continues = false,
    knownToolCallIds: readonly string[] = [],
  ) {
    for (const id of knownToolCallIds) this.announced.add(id);
  }

  start(): UiMessageChunk[] {
    return [this.continues ? { type: "start" } : { type: "start", messageId: this.messageId }];
  }

  /** Ends this response while the run waits for a human: useChat answers with a new request. */
  pauseForApproval(): UiMessageChunk[] {
    return [...this.closeStep(), { type: "finish", finishReason: "tool-calls" }];
  }

  /** The chunks for one event; `finished` once the run's end has been translated. */
  translate(event: AgentEvent): UiMessageChunk[] {
    switch (event.type) {
      case "runStart":
        return [];
      case "messageStart":
        return [...this.closeStep(), { type: "start-step" }, ...this.markStepOpen()];
      case "messageDelta": {
        if (event.text === "") return [];
        const out: UiMessageChunk[] = this.stepOpen ? [] : [{ type: "start-step" }, ...this.markStepOpen()];
        if (!this.textId) {
          this.textId = `${this.messageId}-text-${++this.texts}`;
          out.push({ type: "text-start", id: this.textId });
        }
        out.push({ type: "text-delta", id: this.textId, delta: event.text });
        return out;
      }
      case "messageEnd":
        return event.message.role === "assistant" ? this.closeText() : [];
      case "toolExecStart":
        return this.announce(event.toolCallId, event.toolName, event.arguments);
      case "toolApprovalRequired":
        return [
          ...this.announce(event.toolCallId, event.toolName, event.arguments),
          { type: "tool-approval-request", approvalId: event.toolCallId, toolCallId: event.toolCallId },
        ];
      case "toolExecUpdate":
        return [
          ...this.announce(event.toolCallId, event.toolName, event.arguments),
          { type: "tool-output-available", toolCallId: event.toolCallId, output: event.partialResult, dynamic: true, preliminary: true },
        ];
      case "toolExecEnd": {
        const out = this.announce(event.toolCallId, event.toolName, undefined);
        if (event.isError) {
          const errorText = event.result.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n") || "Tool failed";
          out.push({ type: "tool-output-error", toolCallId: event.toolCallId, errorText, dynamic: true });
        } else {
          out.push({
            type: "tool-output-available",
            toolCallId: event.toolCallId,
            output: { content: event.result.content, details: event.result.details },
            dynamic: true,
          });
        }
        return out;
      }
      case "error":
        // Session errors (an unreachable MCP server, a retried call) do not end the run: a notice, not an error chunk.
        return [{ type: "data-notice", data: { level: "error", message: event.message }, transient: true }];
      case "mcpAuthRequired":
        return [
          {
            type: "data-notice",
            data: { level: "info", message: `MCP server "${event.server}" needs authorization`, authorizationUrl: event.authorizationUrl },
            transient: true,
          },
        ];
      case "mcpToolsChanged":
        return [
          {
            type: "data-notice",
            data: { level: event.changed.length > 0 ? "warning" : "info", message: describeToolsChange(event) },
            transient: true,
          },
        ];
      case "mcpElicitation":
        // A data part a useChat client can render as a form; the answer goes to the elicitations route.
        return [
          {
            type: "data-mcp-elicitation",
            id: event.elicitationId,
            data: {
              elicitationId: event.elicitationId,
              server: event.server,
              message: event.message,
              requestedSchema: event.requestedSchema,
            },
          },
        ];
      case "llmRetry":
        // Transient (useChat's onData sees it, the message keeps nothing): the answer is late, not lost.
        return [
          {
            type: "data-notice",
            data: {
              level: "retry",
              message: `The model's endpoint failed (${event.message}); retry ${event.retry} in ${event.delayMs} ms`,
            },
            transient: true,
          },
        ];
      case "modelFallback":
        // Transient like a retry: the answer comes, from another model.
        return [
          {
            type: "data-notice",
            data: { level: "warning", message: `The model ${event.from} failed (${event.reason}); this step uses ${event.to}` },
            transient: true,
          },
        ];
      case "budgetExceeded":
        return [
          {
            type: "data-notice",
            data: { level: "error", message: `Token budget spent (${event.scope}): ${event.used} of ${event.limit} tokens used` },
            transient: true,
          },
        ];
      case "scheduleRefused":
        return [
          {
            type: "data-notice",
            data: {
              level: "error",
              message: `A schedule was not sent: the ${event.budget.scope}'s token budget is spent (${event.budget.used} of ${event.budget.limit} tokens)`,
            },
            transient: true,
          },
        ];
      case "guardrailTripped":
        return [
          {
            type: "data-notice",
            data: { level: "error", message: `Refused by the ${event.stage} guardrail "${event.guardrail}": ${event.reason}` },
            transient: true,
          },
        ];
      case "contextTrimmed":
      case "contextCompacted":
      case "scheduleFired":
        return []; // bookkeeping (what the model saw, a schedule's fire): nothing for the chat to show
      case "messageAbandoned":
        // A retried or resumed LLM call replaces the partial message: drop what this step showed.
        this.textId = undefined;
        return this.stepOpen ? [{ type: "reset-step" }] : [];
      case "runEnd": {
        const out = this.closeStep();
        if (event.stopReason === "error") out.push({ type: "error", errorText: event.response.errorMessage ?? "The run failed" });
        out.push({ type: "finish", finishReason: FINISH_REASONS[event.stopReason] });
        return out;
      }
      default:
        return assertNever(event);
    }
  }

  private announce(toolCallId: string, toolName: string, input: unknown): UiMessageChunk[] {
    if (this.announced.has(toolCallId)) return [];
    this.announced.add(toolCallId);
    const out: UiMessageChunk[] = [...this.closeText()];
    if (!this.stepOpen) out.push({ type: "start-step" }, ...this.markStepOpen());
    out.push({ type: "tool-input-available", toolCallId, toolName, input: input ?? {}, dynamic: true });
    return out;
  }

  private markStepOpen(): UiMessageChunk[] {
    this.stepOpen = true;
    return [];
  }

  private closeText(): UiMessageChunk[] {
    if (!this.textId) return [];
    const id = this.textId;
    this.textId = undefined;
    return [{ type: "text-end", id }];
  }

  private closeStep(): UiMessageChunk[] {
    const out = this.closeText();
    if (this.stepOpen) out.push({ type: "finish-step" });
    this.stepOpen = false;
    return out;
  }
}

function describeToolsChange(event: { server: string; added: string[]; removed: string[]; changed: string[] }): string {
  const parts = [
    event.changed.length > 0 ? `changed under the same name: ${event.changed.join(", ")}` : "",
    event.added.length > 0 ? `added: ${event.added.join(", ")}` : "",
    event.removed.length > 0 ? `removed: ${event.removed.join(", ")}` : "",
  ].filter(Boolean);
  return `MCP server "${event.server}" tools ${parts.join("; ") || "re-listed"}`;
}

function assertNever(event: never): never {
  throw new Error(`Unhandled event ${JSON.stringify(event)}`);
}
