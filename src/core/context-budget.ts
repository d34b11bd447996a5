/**
 * The default context policy (the spec's prepareContext): each request stays within a token budget
 * (estimated) by leaving out the oldest whole turns. A cut only ever falls on a user message that
 * starts a turn (or, in a history without one, on an assistant message), so a tool call is never sent
 * without its result; the system prompt, the tools and the current turn are always sent.
 * Cost per step: each message is estimated once (the estimate is kept with it), and the cut is found by
 * walking back from the newest message, stopping once the budget is spent. Storage and the snapshot keep
 * the full history.
 */
import { describeContentBlock } from "./content-text.ts";
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
        chars +=
          block.name.length +
          (typeof block.arguments === "string" ? block.arguments.length : JSON.stringify(block.arguments).length) +
          block.id.length +
          TOOL_CALL_OVERHEAD_CHARS;
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
 * The state as a context whose estimated size is at most `maxTokens` (unless the current turn alone is larger).
 * The cut is the oldest user message (or, with none, assistant message) from which everything to the end
 * fits; the estimate from a message to the end only grows further back, so it is found by bisection.
 */
export function budgetContext(state: AgentState, maxTokens: number = DEFAULT_MAX_CONTEXT_TOKENS): AgentContext {
  const messages = state.messages;
  let used = MESSAGE_OVERHEAD_TOKENS + tokensOf(state.systemPrompt.length);
  for (const tool of state.tools.values()) used += estimateToolTokens(tool);
  // Walking back, `used` counts everything from messages[i] to the end. The newest user message starts the
  // current turn, sent whatever it costs; before it, a cut may fall on any user message that still fits.
  let cut: { index: number; used: number } | undefined;
  let currentTurn: { index: number; used: number } | undefined;
  let oldestFittingAssistant: { index: number; used: number } | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    used += estimateMessageTokens(message);
    const fits = used <= maxTokens;
    if (message.role === "user") {
      currentTurn ??= { index: i, used };
      if (!fits) break; // every earlier cut would cost more still
      cut = { index: i, used };
    } else if (message.role === "assistant" && currentTurn === undefined && fits) oldestFittingAssistant = { index: i, used };
  }
  // With no user message everything is the current turn: cut at the oldest assistant that fits, else send all.
  const chosen = currentTurn === undefined ? oldestFittingAssistant : (cut ?? currentTurn);
  const context: AgentContext = { systemPrompt: state.systemPrompt, messages, tools: state.tools };
  if (!chosen || chosen.index === 0) return context;
  const kept = messages.slice(chosen.index);
  context.messages = kept;
  context.trimmed = { omittedMessages: chosen.index, keptMessages: kept.length, estimatedTokens: chosen.used, maxContextTokens: maxTokens };
  return context;
}
