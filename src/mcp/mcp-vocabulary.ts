/**
 * What MCP adds to the core's vocabulary, merged into its declarations from here: the events of a
 * session's remote MCP servers (a question for the user, an authorization needed, a changed tool list),
 * and the services the /mcp server offers every tool it serves (log, elicit, sample, roots). Declarations and
 * the log levels' order, importing only the core, so every program that reads those unions can load it
 * (src/host-vocabulary.ts).
 */
import type { JsonSchema } from "../core/index.ts";

declare module "../core/events.ts" {
  interface HostEvents {
    /** An MCP server asks the user (elicitation/create); answered on the elicitations route. */
    mcpElicitation: { elicitationId: string; server: string; message: string; requestedSchema: Record<string, unknown> };
    /** A remote MCP server needs the user to authorize this Worker at `authorizationUrl`; its tools are absent until then. */
    mcpAuthRequired: { server: string; authorizationUrl: string };
    /** A remote MCP server's tool list changed; `changed` names tools whose definition changed under the same name (drift). */
    mcpToolsChanged: { server: string; added: string[]; removed: string[]; changed: string[] };
  }
}

declare module "../core/types.ts" {
  interface ToolExecutionContext {
    /** Where a host has a log channel (MCP's notifications/message over /mcp); absent elsewhere. */
    log?: (level: ToolLogLevel, data: unknown) => void;
    /** Where a host can ask a human mid-call (MCP elicitation over /mcp); absent elsewhere. */
    elicit?: (request: ToolElicitation) => Promise<ToolElicitationAnswer>;
    /** Where a host can ask its client's model mid-call (MCP sampling over /mcp); absent elsewhere. */
    sample?: (request: ToolSampling) => Promise<ToolSamplingAnswer>;
    /** Where a host can ask its client which roots (directories, repositories) it works in (MCP roots/list); absent elsewhere. */
    roots?: (request?: { key?: string }) => Promise<ToolRoot[]>;
  }
}

/** MCP's (syslog's) levels, least severe first. */
export const TOOL_LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type ToolLogLevel = (typeof TOOL_LOG_LEVELS)[number];
/**
 * A question for a human: a message and a flat object schema of string/number/boolean/enum fields.
 * `key` names the question where a client answers several by name (a 2026-07-28 Multi Round-Trip
 * Request's inputRequests); unnamed questions are numbered.
 */
export type ToolElicitation = { message: string; requestedSchema: JsonSchema; key?: string };
export type ToolElicitationAnswer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
/** A text conversation for a model to continue, at most `maxTokens` long. */
export type ToolSampling = {
  messages: { role: "user" | "assistant"; text: string }[];
  systemPrompt?: string;
  maxTokens: number;
  /** As ToolElicitation's `key`. */
  key?: string;
};
/** The model's reply: its text (other kinds named in brackets), and which model wrote it. */
export type ToolSamplingAnswer = { text: string; model: string };
/** A root the client works in: a `file://` (or other) URI and, optionally, a name for people. */
export type ToolRoot = { uri: string; name?: string };
