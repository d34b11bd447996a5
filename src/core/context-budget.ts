/**
 * The default context policy (the spec's prepareContext): each request stays within a token budget
 * (estimated) by leaving out the oldest whole turns. A cut only ever falls on a user message that
 * starts a turn (or, in a history without one, on an assistant message), so a tool call is never sent
 * without its result; the system prompt, the tools and the current turn are always sent.
 * Cost per step: the messages appended since the last step are estimated and added to running totals kept
 * per history array, and the cut is found by bisection, so it does not grow with the length of the history. Storage and the snapshot keep the full history.
 * Kept because measured: with the step caches of format-messages, context-budget, history-windows and
 * request-json removed, the step took 1.45× as long at 1,000 messages (interleaved bench:ab, non-streaming).
 */
import { describeContentBlock } from "./content-text.ts";
import { markHistoryWindow, markRead, onlyAppendedSince, type ReadProgress } from "./history-windows.ts";
import type { AgentContext, AgentMessage, AgentState, AgentTool } from "./types.ts";

/** Fits the context windows of current hosted models with room left for the answer. */
export const DEFAULT_MAX_CONTEXT_TOKENS = 64_000;
/** A rough, provider-neutral estimate: English text and JSON average about four characters per token. */
const CHARS_PER_TOKEN = 4;
/** Role, separators and wire fields per message (errs high: an estimate must not let a request overflow). */
const MESSAGE_OVERHEAD_TOKENS = 8;
/** The wire form of one tool call beyond its name and arguments (`id`, `type`, `function` keys). */
const TOOL_CALL_OVERHEAD_CHARS = 64;
/** Vision models bill an image by tiles, not by its base64 length; this is a typical high-detail cost. */
const IMAGE_TOKENS = 1_000;

// Stored messages and tools never change, so each is estimated once.
const estimates = new WeakMap<object, number>();

/** Tokens for `chars` characters of text or JSON (also the LLM adapters' usage estimate, src/llm/usage.ts). */
export const tokensOf = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

export function estimateMessageTokens(message: AgentMessage): number {
  const cached = estimates.get(message);
  if (cached !== undefined) return cached;
  let chars = 0;
  let images = 0;
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        chars += block.text.length;
        break;
      case "image":
        images++;
        break;
      case "audio":
      case "resource_link":
      case "resource":
        chars += describeContentBlock(block).length; // what the model is sent in its place
        break;
      case "thinking":
        break; // not sent back to the model
      case "toolCall":
        chars += block.name.length + (typeof block.arguments === "string" ? block.arguments.length : JSON.stringify(block.arguments).length) + block.id.length + TOOL_CALL_OVERHEAD_CHARS;
        break;
      default: {
        // A block written by an older version: estimate it by its JSON rather than fail the run.
        const unknown: never = block;
        chars += JSON.stringify(unknown)?.length ?? 0;
      }
    }
  }
  if (message.role === "toolResult") chars += message.toolCallId.length;
  const tokens = MESSAGE_OVERHEAD_TOKENS + tokensOf(chars) + images * IMAGE_TOKENS;
  estimates.set(message, tokens);
  return tokens;
}

export function estimateToolTokens(tool: AgentTool): number {
  const cached = estimates.get(tool);
  if (cached !== undefined) return cached;
  const tokens = MESSAGE_OVERHEAD_TOKENS + tokensOf(tool.name.length + tool.description.length + JSON.stringify(tool.inputSchema).length);
  estimates.set(tool, tokens);
  return tokens;
}

/**
 * Running totals over one history array, extended by what was appended since the last step: the estimated
 * tokens before each message, and where the user and assistant messages are (cuts fall only on those).
 * Valid while the array keeps the messages it had (append-only); a trim from the front rebuilds them.
 */
type HistoryTotals = ReadProgress & {
  /** tokensBefore[i]: estimated tokens of messages[0..i); one entry more than messages counted. */
  tokensBefore: number[];
  users: number[];
  assistants: number[];
};

const totalsByHistory = new WeakMap<readonly AgentMessage[], HistoryTotals>();

function totalsOf(messages: readonly AgentMessage[]): HistoryTotals {
  let totals = totalsByHistory.get(messages);
  if (!totals || !onlyAppendedSince(messages, totals)) {
    totals = { tokensBefore: [0], users: [], assistants: [], counted: 0, first: undefined, last: undefined };
    totalsByHistory.set(messages, totals);
  }
  const { tokensBefore, users, assistants } = totals;
  for (let i = tokensBefore.length - 1; i < messages.length; i++) {
    const message = messages[i]!;
    tokensBefore.push(tokensBefore[i]! + estimateMessageTokens(message));
    if (message.role === "user") users.push(i);
    else if (message.role === "assistant") assistants.push(i);
  }
  markRead(totals, messages);
  return totals;
}

/** The first of `candidates` (ascending indexes) with `fits` true, given it holds for every later one. */
function firstFitting(candidates: readonly number[], end: number, fits: (index: number) => boolean): number | undefined {
  let lo = 0;
  let hi = end; // candidates[hi] (if any) is known to fit, or hi is past the end
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (fits(candidates[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo < end ? candidates[lo] : undefined;
}

/**
 * The state as a context whose estimated size is at most `maxTokens` (unless the current turn alone is larger).
 * The cut is the oldest user message (or, with none, assistant message) from which everything to the end
 * fits; the estimate from a message to the end only grows further back, so it is found by bisection.
 */
export function budgetContext(state: AgentState, maxTokens: number = DEFAULT_MAX_CONTEXT_TOKENS): AgentContext {
  const messages = state.messages;
  let fixed = MESSAGE_OVERHEAD_TOKENS + tokensOf(state.systemPrompt.length);
  for (const tool of state.tools.values()) fixed += estimateToolTokens(tool);

  const { tokensBefore, users, assistants } = totalsOf(messages);
  const total = tokensBefore[messages.length]!;
  const usedFrom = (index: number) => fixed + total - tokensBefore[index]!;
  const fits = (index: number) => usedFrom(index) <= maxTokens;

  let cut: number;
  if (users.length > 0) {
    // The current turn (from the last user message on) is always sent, whatever it costs.
    cut = firstFitting(users, users.length - 1, fits) ?? users[users.length - 1]!;
  } else {
    // No user message: everything is the current turn; cut at the oldest assistant that fits, else send all.
    cut = firstFitting(assistants, assistants.length, fits) ?? 0;
  }

  const context: AgentContext = { systemPrompt: state.systemPrompt, messages, tools: state.tools };
  markHistoryWindow(messages, messages);
  if (cut === 0) return context;
  context.messages = markHistoryWindow(messages.slice(cut), messages);
  context.trimmed = { omittedMessages: cut, keptMessages: messages.length - cut, estimatedTokens: usedFrom(cut), maxContextTokens: maxTokens };
  return context;
}
