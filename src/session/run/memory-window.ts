/**
 * The part of a session's history kept in memory: the newest messages, back to the start of a turn, whose
 * stored size covers what the context policy can send (its token budget, with room to spare). Older
 * messages stay in SQLite and are read on demand (pages for clients), so a session's memory and wake
 * time do not grow with its age. Called by the run driver: when a run first needs history, and around runs.
 * Invariant: the window starts at a user message, or (in a turn too long for that) at an assistant
 * message, so a tool call is never kept without its result.
 */
import type { AgentMessage } from "../../core/index.ts";
import { readSetting } from "../../config.ts";

/**
 * Stored JSON characters kept per budget token: the context policy estimates ~4 characters of content per
 * token, and stored JSON is larger than content, so 8 keeps at least the whole budget with a wide margin.
 */
const CHARS_PER_TOKEN_KEPT = 8;

/** A message's stored JSON size (measured around runs, not per step). */
const storedSizeOf = (message: AgentMessage): number => JSON.stringify(message).length;

/** A fallback named `workers-ai:<model>` may have its window stated under either name. */
const WORKERS_AI_PREFIX = "workers-ai:";

/**
 * The context policy's request budget in estimated tokens: MAX_CONTEXT_TOKENS, or the smallest window
 * MODEL_CONTEXT_WINDOWS states for the session's model or one of its MODEL_FALLBACKS, when smaller. A step's
 * request is built before anyone knows which model will answer it, and a fallback gets the same request,
 * so it must fit them all.
 */
export function contextTokens(
  env: { MAX_CONTEXT_TOKENS?: string; MODEL_CONTEXT_WINDOWS?: string; MODEL_FALLBACKS?: string },
  model?: string,
): number {
  let budget = readSetting(env, "MAX_CONTEXT_TOKENS");
  if (model === undefined) return budget;
  const windows = readSetting(env, "MODEL_CONTEXT_WINDOWS");
  // Own keys only: a model named like an Object method ("constructor") has no window by inheritance.
  const windowOf = (name: string) => (Object.hasOwn(windows, name) ? windows[name] : undefined);
  for (const name of [model, ...readSetting(env, "MODEL_FALLBACKS")]) {
    const window = windowOf(name) ?? (name.startsWith(WORKERS_AI_PREFIX) ? windowOf(name.slice(WORKERS_AI_PREFIX.length)) : undefined);
    if (window !== undefined) budget = Math.min(budget, window);
  }
  return budget;
}

/** Characters of stored history to keep in memory for a context budget of `maxContextTokens`. */
export function windowChars(maxContextTokens: number): number {
  return maxContextTokens * CHARS_PER_TOKEN_KEPT;
}

/**
 * Where the window over `messages` starts: walking back from the newest, the first user message at which
 * the kept size reaches `maxChars`; in a turn longer than twice that, the first assistant message past
 * it (a turn of thousands of tool calls must not pin all of them). 0 when everything fits.
 */
export function windowStart(
  messages: readonly AgentMessage[],
  maxChars: number,
  sizeOf: (m: AgentMessage) => number = storedSizeOf,
): number {
  let kept = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    kept += sizeOf(message);
    if (kept < maxChars) continue;
    if (message.role === "user" || (message.role === "assistant" && kept >= 2 * maxChars)) return i;
  }
  return 0;
}

/** Drops from memory (never from storage) the messages before the window; returns how many were dropped. */
export function trimToWindow(messages: AgentMessage[], maxChars: number): number {
  const start = windowStart(messages, maxChars);
  if (start > 0) messages.splice(0, start);
  return start;
}
