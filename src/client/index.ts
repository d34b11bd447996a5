/**
 * The client SDK's public surface, for Node and (bundled by scripts/build-client.ts) for the web page.
 * Everything a caller needs: createClient, the handle and error classes, the parser and the types.
 */
export { AgentClient, SessionHandle, createClient } from "./client.ts";
export { ApiClientError } from "./errors.ts";
export { streamSessionEvents, type EventStreamTarget } from "./event-stream.ts";
export { SseParser, type SseItem, type SseMessage } from "../wire/sse-parser.ts";
export type {
  AgentMessage,
  ApprovalResult,
  AssistantMessage,
  ClientOptions,
  ConnectionState,
  CreateSessionOptions,
  EventStreamOptions,
  EventsDroppedEvent,
  McpCatalogEntry,
  McpServerEntry,
  MessageContent,
  McpToolEntry,
  Memory,
  MemoryList,
  MessagePage,
  PendingApproval,
  QueueDepths,
  ScheduleEntry,
  ScheduleOptions,
  SessionListing,
  SessionPage,
  SessionSettingsPatch,
  SessionSnapshot,
  SessionStatus,
  SessionStreamEvent,
  StampedEvent,
  ToolEntry,
  ToolList,
  ToolResultMessage,
  ToolStatus,
  UserContent,
  UserMessage,
  WireEvent,
  WireEventType,
} from "./types.ts";
