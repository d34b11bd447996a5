/**
 * Which message arrays are a contiguous run of one history array (the default context policy's result, or
 * the history itself). History is append-only within a run and trimmed only from the front, so two windows
 * of the same history that start with the same message and agree at one place agree on everything before
 * it: formatting can then reuse the previous step's work for that prefix. Arrays from a deployer's own
 * prepareContext are not marked, and are handled message by message.
 * Kept because measured: with the step caches of format-messages, context-budget, history-windows and
 * request-json removed, the step took 1.45× as long at 1,000 messages (interleaved bench:ab, non-streaming).
 */
import type { AgentMessage } from "./types.ts";

const historyOfWindow = new WeakMap<readonly AgentMessage[], readonly AgentMessage[]>();

/** Records that `window` is a contiguous run of `history` (the history itself included); returns `window`. */
export function markHistoryWindow<T extends readonly AgentMessage[]>(window: T, history: readonly AgentMessage[]): T {
  historyOfWindow.set(window, history);
  return window;
}

/** The history `window` is a contiguous run of, if it was marked. */
export function historyOf(window: readonly AgentMessage[]): readonly AgentMessage[] | undefined {
  return historyOfWindow.get(window);
}

/** How far a cache has read an append-only message array: how many it counted, and the first and last of those. */
export type ReadProgress = { counted: number; first: AgentMessage | undefined; last: AgentMessage | undefined };

/**
 * True when `messages` is what `progress` read plus appended messages: the same first message and the same
 * message at the last place counted (history only grows at the end and is trimmed only from the front, so
 * agreeing at both places means agreeing on everything between).
 */
export function onlyAppendedSince(messages: readonly AgentMessage[], progress: ReadProgress): boolean {
  const { counted } = progress;
  return counted <= messages.length && messages[0] === progress.first && (counted === 0 || messages[counted - 1] === progress.last);
}

/** Records that `progress` has now read all of `messages`. */
export function markRead(progress: ReadProgress, messages: readonly AgentMessage[]): void {
  progress.counted = messages.length;
  progress.first = messages[0];
  progress.last = messages[messages.length - 1];
}
