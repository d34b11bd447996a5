/**
 * Structured logs for Workers Logs (`[observability]`): one JSON line per finished tool call and one per
 * finished run, built by watching the session's stamped events (the sink calls `observe` after storing
 * each). Lines carry session, run, tool, duration, isError, tokens and LLM retries, and a failed run's
 * error message (bounded); `npm run tail` shows them. A run's tool-call lines are written just before its run line (or once HELD_LINES_MAX wait): a
 * console.log costs ~1 ms of CPU under `wrangler dev`, which a step must not pay, and Workers Logs deliver
 * an invocation's lines when it ends anyway. Never throws; keeps state only for the run in progress.
 */
import type { StampedEvent } from "../wire/events.ts";
import type { Usage } from "../core/index.ts";

export type ToolCallLogLine = {
  event: "toolCall";
  sessionId: string;
  runId: string | null;
  tool: string;
  toolCallId: string;
  durationMs: number | null;
  isError: boolean;
  tokens: Usage | null;
};

export type RunLogLine = {
  event: "run";
  sessionId: string;
  runId: string | null;
  durationMs: number;
  stopReason: string;
  isError: boolean;
  model: string | null;
  toolCalls: number;
  toolErrors: number;
  tokens: Usage;
  retries: number;
  /** The run continued after a restart: its duration counts from the resumption. */
  resumed: boolean;
  /** Only on a failed run: why (the final message's errorMessage, else the run's last error event). */
  error?: string;
};

export type LogLine = ToolCallLogLine | RunLogLine;

type RunState = {
  startedAt: number;
  resumed: boolean;
  toolCalls: number;
  toolErrors: number;
  retries: number;
  tokens: Usage;
  lastError?: string;
};

const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** Tool-call lines held back at most: a run with more writes them in groups of this many. */
export const HELD_LINES_MAX = 64;
/** A failed run's message is cut here: enough to name the cause, bounded for a log line. */
export const MAX_ERROR_CHARS = 1_000;

const clip = (text: string) => (text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text);

export class RunLog {
  private run: RunState | undefined;
  private readonly toolStarts = new Map<string, number>();
  private held: string[] = [];

  constructor(private readonly write: (line: string) => void = (line) => console.log(line)) {}

  observe(event: StampedEvent): void {
    try {
      this.fold(event);
    } catch {
      // Logging must never disturb a run.
    }
  }

  private fold(event: StampedEvent): void {
    const run = (this.run ??= {
      startedAt: event.ts,
      resumed: event.type !== "runStart",
      toolCalls: 0,
      toolErrors: 0,
      retries: 0,
      tokens: emptyUsage(),
    });
    switch (event.type) {
      case "runStart":
        this.run = { startedAt: event.ts, resumed: false, toolCalls: 0, toolErrors: 0, retries: 0, tokens: emptyUsage() };
        this.toolStarts.clear();
        return;
      case "llmRetry":
        run.retries++;
        return;
      case "messageEnd": {
        const usage = event.message.role === "assistant" ? event.message.usage : undefined;
        if (usage) addUsage(run.tokens, usage);
        return;
      }
      case "toolExecStart":
        this.toolStarts.set(event.toolCallId, event.ts);
        return;
      case "toolExecEnd": {
        const startedAt = this.toolStarts.get(event.toolCallId);
        this.toolStarts.delete(event.toolCallId);
        run.toolCalls++;
        if (event.isError) run.toolErrors++;
        this.emit({
          event: "toolCall",
          sessionId: event.sessionId,
          runId: event.runId ?? null,
          tool: event.toolName,
          toolCallId: event.toolCallId,
          durationMs: startedAt === undefined ? null : event.ts - startedAt,
          isError: event.isError,
          tokens: event.result.usage ?? null,
        });
        return;
      }
      case "runEnd": {
        const isError = event.stopReason === "error" || event.response.errorMessage !== undefined;
        const error = event.response.errorMessage ?? run.lastError;
        this.emit({
          event: "run",
          sessionId: event.sessionId,
          runId: event.runId ?? null,
          durationMs: event.ts - run.startedAt,
          stopReason: event.stopReason,
          isError,
          model: event.response.model ?? null,
          toolCalls: run.toolCalls,
          toolErrors: run.toolErrors,
          tokens: run.tokens,
          retries: run.retries,
          resumed: run.resumed,
          ...(isError ? { error: clip(error ?? "(no message)") } : {}),
        });
        this.run = undefined;
        this.toolStarts.clear();
        return;
      }
      case "error":
        run.lastError = event.message;
        return;
      case "messageStart":
      case "messageDelta":
      case "toolExecUpdate":
      case "toolApprovalRequired":
      case "mcpElicitation":
      case "contextTrimmed":
      case "contextCompacted":
      case "messageAbandoned":
      case "mcpAuthRequired":
      case "mcpToolsChanged":
      case "modelFallback":
      case "budgetExceeded":
      case "guardrailTripped":
        return; // deltas, approvals and notices carry nothing these lines count
      case "scheduleFired":
      case "scheduleRefused":
        return; // deltas, approvals, errors and notices carry nothing these lines count
      default:
        // Every event type is placed above: tsc fails here when the core's union gains one.
        event satisfies never;
    }
  }

  private emit(line: LogLine): void {
    const text = JSON.stringify(line);
    if (line.event === "toolCall") {
      this.held.push(text);
      if (this.held.length >= HELD_LINES_MAX) this.release();
      return;
    }
    this.release();
    this.write(text);
  }

  private release(): void {
    const lines = this.held;
    this.held = [];
    for (const line of lines) this.write(line);
  }
}

function addUsage(total: Usage, usage: Usage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.totalTokens += usage.totalTokens;
}
