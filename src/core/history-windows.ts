/**
 * Which message arrays are a contiguous run of one history array (the default context policy's result, or
 * the history itself). History is append-only within a run and trimmed only from the front, so two windows
 * of the same history that start with the same message and agree at one place agree on everything before
 * it: formatting can then reuse the previous step's work for that prefix. Arrays from a deployer's own
 * prepareContext are not marked, and are handled message by message.
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
