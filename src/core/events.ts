/**
 * The one event union the runtime emits, tagged by `type`. The core emits these bare; the host's sink
 * stamps them with `seq`, `sessionId`, `runId` and `ts` before storing and streaming (the wire union in
 * src/wire/events.ts is derived from this one, so a type added here reaches every consumer).
 * Per tool call the order is toolExecStart → toolExecUpdate* → toolExecEnd, never an update after the end.
 */
import type { AgentMessage, AgentToolResult, AssistantMessage, ContextTrim, StopReason } from "./types.ts";

export type AgentEvent =
  | { type: "runStart" }
  | { type: "messageStart"; role: "assistant" }
  | { type: "messageDelta"; text: string }
  | { type: "messageEnd"; message: AgentMessage }
  | { type: "toolExecStart"; toolCallId: string; toolName: string; arguments: unknown }
  | {
      type: "toolExecUpdate";
      toolCallId: string;
      toolName: string;
      arguments: unknown;
      partialResult: unknown;
    }
  | {
      type: "toolExecEnd";
      toolCallId: string;
      toolName: string;
      result: AgentToolResult;
      isError: boolean;
    }
  | {
      type: "toolApprovalRequired";
      toolCallId: string;
      toolName: string;
      arguments: unknown;
      reason?: string;
    }
  /** An MCP server asks the user (elicitation/create); answered on the elicitations route. */
  | { type: "mcpElicitation"; elicitationId: string; server: string; message: string; requestedSchema: Record<string, unknown> }
  | { type: "runEnd"; response: AssistantMessage; stopReason: StopReason }
  /** An LLM request failed and will be tried again after `delayMs` (retry number `retry`, from 1). */
  | { type: "llmRetry"; retry: number; delayMs: number; message: string }
  | { type: "error"; message: string }
  /** The request left out older messages to stay within the context budget (history keeps them). */
  | ({ type: "contextTrimmed" } & ContextTrim)
  /** The partial assistant message being streamed will not be completed (a failed or resumed LLM call): drop it. */
  | { type: "messageAbandoned"; reason: string }
  /** A remote MCP server needs the user to authorize this Worker at `authorizationUrl`; its tools are absent until then. */
  | { type: "mcpAuthRequired"; server: string; authorizationUrl: string }
  /** A remote MCP server's tool list changed; `changed` names tools whose definition changed under the same name (drift). */
  | { type: "mcpToolsChanged"; server: string; added: string[]; removed: string[]; changed: string[] }
  /** A schedule's due time came: its message was queued as user message `messageId` (marked with `scheduleId`). */
  | { type: "scheduleFired"; scheduleId: string; messageId: string };

export type AgentEventType = AgentEvent["type"];

/** The event sink. It may return a promise; the pipeline waits for update deliveries before finalizing. */
export type EmitEvent = (event: AgentEvent) => void | Promise<void>;
