/**
 * Shared checks for the reliability suite: the history invariant the LLM depends on (every tool call
 * answered exactly once, results right after their call) and a session snapshot reader.
 */
import { expect } from "vitest";
import type { SnapshotMessage } from "../session/support.ts";

export { snapshotOf } from "../session/support.ts";

/** Every toolCall block is followed by exactly one toolResult with its id, before the next assistant turn. */
export function expectEveryToolCallAnswered(messages: SnapshotMessage[]): void {
  let open: string[] = [];
  for (const m of messages) {
    if (m.role === "assistant") {
      expect(open, "tool calls left unanswered before the next assistant message").toEqual([]);
      open = m.content.filter((b) => b.type === "toolCall").map((b) => b.id!);
    } else if (m.role === "toolResult") {
      expect(open).toContain(m.toolCallId);
      open = open.filter((id) => id !== m.toolCallId);
    } else if (m.role === "user") {
      expect(open, "a user message arrived between a tool call and its result").toEqual([]);
    }
  }
  expect(open).toEqual([]);
}
