/**
 * The child side of a sub-agent call: what a parent session may ask of the child it started (start it,
 * follow it, abort it, answer its approvals, erase it). Called by AgentSession's sub-agent RPC methods;
 * the parent proves itself with the key hash the child shares with it (the child is readable with the
 * parent's key). Invariants: the settings and the task are stored in one synchronous block, so a child
 * exists with its task or not at all; a child takes input from its parent only, so it runs one run.
 */
import { constantTimeEqual } from "../../credentials.ts";
import type { AgentMessage, AssistantMessage, StopReason } from "../../core/index.ts";
import { openEventStream } from "../events/event-feed.ts";
import { writeSettings } from "../session-loader.ts";
import type { SessionSettings } from "../storage/session-meta.ts";
import type { SubAgentFollow, SubAgentOutcome } from "./sub-agent-calls.ts";
import { SessionQueues } from "../storage/session-queues.ts";
import { migrate } from "../storage/session-schema.ts";
import { ok, refuse, type SessionResult } from "../session-result.ts";
import type { Session } from "../session.ts";

/** The parent's calls are accepted only with the key hash stored at the child's creation (the parent's). */
export function authorizeParent(session: Session | undefined, parentKeyHash: string): SessionResult<Session> {
  if (!session) return refuse("not_found", "Sub-agent session not found");
  if (!session.settings.subAgent || !constantTimeEqual(parentKeyHash, session.settings.keyHash))
    return refuse("wrong_key", "Not this sub-agent's parent");
  return ok(session);
}

/** Stores a new child's settings and its task as its first user message, in one synchronous block. */
export function storeChild(sql: SqlStorage, settings: SessionSettings, task: string): void {
  migrate(sql);
  writeSettings(sql, settings);
  new SessionQueues(sql).offer("input", crypto.randomUUID(), {
    role: "user",
    content: [{ type: "text", text: task }],
    timestamp: Date.now(),
  });
}

/**
 * The child's outcome once its run has ended (its runEnd is stored, no run is open, nothing is pending)
 * and the parent has relayed its events through the runEnd; else its events after `afterSeq`, replayed and then live.
 */
export function followChild(session: Session, afterSeq: number): SessionResult<SubAgentFollow> {
  const { record, queues, log } = session;
  const end = record.stored === undefined && !queues.hasPendingInput() ? log.newest("runEnd") : undefined;
  // Done once the parent has relayed everything up to the runEnd; before that, the replay carries it there.
  if (end && afterSeq >= end.seq) {
    const { response, stopReason } = JSON.parse(end.json) as { response: AssistantMessage; stopReason: StopReason };
    const outcome: SubAgentOutcome = { text: textOf(response), stopReason, usage: record.sessionUsage() };
    if (response.errorMessage) outcome.errorMessage = response.errorMessage;
    return ok({ kind: "done", outcome });
  }
  const events = openEventStream(session, afterSeq);
  return events.ok ? ok({ kind: "live", events: events.value }) : events;
}

/** A child refuses input from anyone but its parent: its one run answers its one task. */
export function refuseChildInput(session: Session): SessionResult<never> | undefined {
  return session.settings.subAgent
    ? refuse("sub_agent_input", "A sub-agent session takes its task from its parent session only")
    : undefined;
}

function textOf(message: AgentMessage): string {
  return message.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}
