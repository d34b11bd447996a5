/**
 * Building tool results and result messages (createErrorToolResult, createToolResultMessage). Failures are values: an error result is a
 * normal AgentToolResult with one text block, wrapped in an outcome whose `isError` is true.
 */
import { boundObject } from "./json-safe.ts";
import { contentBlockSize } from "./content-text.ts";
import type {
  AgentToolResult,
  AudioContent,
  EmbeddedResourceContent,
  FinalizedOutcome,
  ResourceLinkContent,
  ToolResultMessage,
  Usage,
} from "./types.ts";

/** Cap on a result's `details` as JSON text: room for real metadata, far below a storage row's 2 MB. */
export const MAX_DETAILS_CHARS = 100_000;
/** Cap on a result's content when the host sets no maxToolResultChars: a stored row must stay under 2 MB. */
export const MAX_STORED_RESULT_CHARS = 500_000;

/** Error texts come from anything a tool throws; a huge one is cut like a huge result. */
const MAX_ERROR_CHARS = 20_000;

export function createErrorToolResult(message: string): AgentToolResult {
  const text =
    message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)} [error message cut: ${message.length} characters]` : message;
  return { content: [{ type: "text", text }], details: {}, terminate: false };
}

export function textToolResult(text: string, details: Record<string, unknown> = {}): AgentToolResult {
  return { content: [{ type: "text", text }], details, terminate: false };
}

/** Turns anything thrown into a message the model can read. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === "string") return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

export function createToolResultMessage(f: FinalizedOutcome, now: number = Date.now()): ToolResultMessage {
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: f.toolCall.id,
    toolName: f.toolCall.name,
    content: f.result.content,
    details: f.result.details,
    isError: f.isError,
    timestamp: now,
  };
  if (f.result.usage) message.usage = f.result.usage;
  if (f.result.addedToolNames?.length) message.addedToolNames = f.result.addedToolNames;
  return message;
}

/**
 * Coerces whatever a tool (or hook) returned into a well-formed AgentToolResult, or explains why it cannot.
 * Tools written by people and models return odd things; the loop must never store a malformed result.
 */
export function normalizeToolResult(value: unknown): { ok: true; result: AgentToolResult } | { ok: false; error: string } {
  if (typeof value === "string") return { ok: true, result: textToolResult(value) };
  if (!value || typeof value !== "object") {
    return { ok: false, error: `Tool returned ${value === null ? "null" : typeof value} instead of a result object` };
  }
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.content)) return { ok: false, error: "Tool result has no content array" };
  const content: AgentToolResult["content"] = [];
  for (const [i, block] of v.content.entries()) {
    const b = block as Record<string, unknown> | null;
    const otherKind = b && typeof b === "object" ? readOtherKindBlock(b) : undefined;
    if (b && b.type === "text" && typeof b.text === "string") content.push({ type: "text", text: b.text });
    else if (b && b.type === "image" && typeof b.data === "string" && typeof b.mimeType === "string") {
      content.push({ type: "image", data: b.data, mimeType: b.mimeType });
    } else if (otherKind) content.push(otherKind);
    else if (typeof block === "string") content.push({ type: "text", text: block });
    else return { ok: false, error: `Tool result content[${i}] is not a text, image, audio, resource_link or resource block` };
  }
  // Details and usage are stored and streamed: made JSON-safe and bounded here, with notes, never refused.
  const rawDetails = v.details && typeof v.details === "object" && !Array.isArray(v.details) ? v.details : {};
  const details = boundObject(rawDetails, MAX_DETAILS_CHARS, "details");
  const result: AgentToolResult = { content, details, terminate: v.terminate === true };
  if (v.usage !== undefined && v.usage !== null) {
    const usage = readUsage(v.usage);
    if (usage) result.usage = usage;
    else
      result.details = {
        ...details,
        storageNotes: [...noteList(details), "usage was not {inputTokens, outputTokens, totalTokens} numbers: left out"],
      };
  }
  if (Array.isArray(v.addedToolNames)) result.addedToolNames = v.addedToolNames.filter((n): n is string => typeof n === "string");
  return { ok: true, result };
}

/** Token counts as plain numbers (a BigInt count is converted); undefined when the value is not a usage. */
export function readUsage(value: unknown): Usage | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  const count = (n: unknown): number | undefined =>
    typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : typeof n === "bigint" && n >= 0n ? Number(n) : undefined;
  const inputTokens = count(v.inputTokens);
  const outputTokens = count(v.outputTokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  return { inputTokens, outputTokens, totalTokens: count(v.totalTokens) ?? inputTokens + outputTokens };
}

function noteList(details: Record<string, unknown>): string[] {
  return Array.isArray(details.storageNotes) ? details.storageNotes.filter((n): n is string => typeof n === "string") : [];
}

/**
 * Caps a result's size (text characters plus image data) before it is stored, streamed or sent to the
 * model, so one tool cannot flood history or the LLM's context. What is cut is said in a note.
 */
export function limitToolResult(result: AgentToolResult, maxChars: number | undefined): AgentToolResult {
  if (!maxChars || maxChars <= 0) return result;
  const total = result.content.reduce((n, b) => n + contentBlockSize(b), 0);
  if (total <= maxChars) return result;
  let budget = maxChars;
  const content: AgentToolResult["content"] = [];
  for (const block of result.content) {
    const size = contentBlockSize(block);
    if (size <= budget) {
      content.push(block);
      budget -= size;
    } else if (block.type === "text" && budget > 0) {
      content.push({ type: "text", text: block.text.slice(0, budget) });
      budget = 0;
    } else if (block.type === "image" || block.type === "audio") {
      content.push({ type: "text", text: `[${block.type} omitted: ${block.mimeType}, ${size} characters of data]` });
    } else if (block.type !== "text") {
      content.push({ type: "text", text: `[${block.type} omitted: ${size} characters]` });
    }
  }
  content.push({ type: "text", text: `[output truncated: ${total} characters, limit ${maxChars}]` });
  return { ...result, content, details: { ...result.details, truncated: { originalChars: total, limit: maxChars } } };
}

/** Audio, resource links and embedded resources, rebuilt field by field (nothing else of the block is kept). */
function readOtherKindBlock(b: Record<string, unknown>): AudioContent | ResourceLinkContent | EmbeddedResourceContent | undefined {
  const str = (v: unknown): v is string => typeof v === "string";
  const opt = <K extends string>(key: K, v: unknown): { [P in K]?: string } => (str(v) ? ({ [key]: v } as { [P in K]?: string }) : {});
  if (b.type === "audio") return str(b.data) && str(b.mimeType) ? { type: "audio", data: b.data, mimeType: b.mimeType } : undefined;
  if (b.type === "resource_link") {
    return str(b.uri) && str(b.name)
      ? { type: "resource_link", uri: b.uri, name: b.name, ...opt("mimeType", b.mimeType), ...opt("description", b.description) }
      : undefined;
  }
  if (b.type === "resource" && b.resource && typeof b.resource === "object") {
    const r = b.resource as Record<string, unknown>;
    if (!str(r.uri) || !(str(r.text) || str(r.blob))) return undefined;
    return { type: "resource", resource: { uri: r.uri, ...opt("mimeType", r.mimeType), ...opt("text", r.text), ...opt("blob", r.blob) } };
  }
  return undefined;
}
