/**
 * The parent side of sub-agent calls: the session's "subAgent" capability (RunSubAgent, sub-agent-vocabulary.ts). A call
 * derives its child's id (sub-agent-id.ts), records it, starts the child (or finds it started), relays
 * the child's events as the call's partial results `{subAgent: {sessionId, event}}` and hands back the
 * child's final text with `details: {sessionId, stopReason, usage}`. Built by the session loader; also
 * forwards approvals to live children and erases every child with the session.
 * Invariants: the same call always re-attaches to the same child, resuming the relay after the last event
 * the parent stored; a child's usage comes back as the result's usage (the run driver adds it up).
 */
import type { AgentToolResult, OnPartialResult, StopReason, Usage } from "../../core/index.ts";
import type { AppEnv } from "../../env.ts";
import { readSetting } from "../../config.ts";
import { bundledRegistry } from "../../tools/catalog.ts";
import { isSubAgent } from "../../tools/define-tool.ts";
import { SseParser } from "../../wire/sse-parser.ts";
import type { EventLog } from "../events/event-log.ts";
import type { SessionSettings } from "../storage/session-meta.ts";
import type { SessionResult } from "../session-result.ts";
import { childSessionId } from "./sub-agent-id.ts";
import type { RunSubAgent, SubAgentRequest } from "./sub-agent-vocabulary.ts";

/** How a sub-agent call ended, as its parent hands it back. */
export type SubAgentOutcome = { text: string; stopReason: StopReason; errorMessage?: string; usage: Usage };

/** What following a child answers: its outcome when its run is over, else its event stream from `afterSeq`. */
export type SubAgentFollow = { kind: "done"; outcome: SubAgentOutcome } | { kind: "live"; events: ReadableStream<Uint8Array> };

type Decision = SessionResult<{ toolCallId: string; approved: boolean }>;

/** The child's RPC methods a parent uses (AgentSession's sub-agent methods), each checked against the key hash. */
export type SubAgentPeer = {
  startSubAgent(parentKeyHash: string, settings: SessionSettings, task: string): Promise<SessionResult<{ created: boolean }>>;
  followSubAgent(parentKeyHash: string, afterSeq: number): Promise<SessionResult<SubAgentFollow>>;
  abortSubAgent(parentKeyHash: string): Promise<SessionResult<{ aborted: boolean }>>;
  decideSubAgentApproval(parentKeyHash: string, toolCallId: string, approve: boolean, reason?: string): Promise<Decision>;
  eraseSubAgent(parentKeyHash: string): Promise<SessionResult<{ status: "shutdown" }>>;
};

/** A child's stream that ends without its runEnd (the child restarted) is followed again, this often at most. */
const MAX_REATTACH_ATTEMPTS = 5;
const REATTACH_DELAY_MS = 200;

type CallParts = {
  sql: SqlStorage;
  env: AppEnv;
  settings: SessionSettings;
  log: EventLog;
  runId: () => string | undefined;
  /** Tokens left of this session's own budget (undefined: no limit): a child starts with no more. */
  tokensLeft: () => number | undefined;
};

export class SubAgentCalls {
  /** Children whose calls run now, by session id: where an approval the parent does not know may belong. */
  private readonly live = new Map<string, SubAgentPeer>();

  constructor(private readonly parts: CallParts) {}

  readonly run: RunSubAgent = (request, onPartialResult, signal) => this.runChild(request, onPartialResult, signal);

  /** Forwards an approval decision to the live children (each forwards to its own); the first that knows it answers. */
  async decide(toolCallId: string, approve: boolean, reason?: string): Promise<Decision | undefined> {
    for (const peer of this.live.values()) {
      const answer = await peer.decideSubAgentApproval(this.parts.settings.keyHash, toolCallId, approve, reason).catch(() => undefined);
      if (answer && (answer.ok || answer.reason !== "unknown_approval")) return answer;
    }
    return undefined;
  }

  /** Erases every child this session started (each erases its own); a child that cannot be reached is logged. */
  async eraseAll(): Promise<void> {
    const ids = this.parts.sql.exec<{ session_id: string }>(`SELECT session_id FROM sub_agents`).toArray();
    await Promise.all(
      ids.map(({ session_id }) =>
        this.peer(session_id)
          .eraseSubAgent(this.parts.settings.keyHash)
          .catch((err: unknown) =>
            console.error(JSON.stringify({ event: "subAgentEraseFailed", sessionId: session_id, message: String(err) })),
          ),
      ),
    );
  }

  private async runChild(request: SubAgentRequest, onPartialResult: OnPartialResult, signal?: AbortSignal): Promise<AgentToolResult> {
    const { sql, env, settings } = this.parts;
    const runId = this.parts.runId();
    if (!runId) throw new Error(`Sub-agent "${request.name}" can only run inside a run`);
    const depth = (settings.subAgent?.depth ?? 0) + 1;
    const maxDepth = readSetting(env, "MAX_SUBAGENT_DEPTH");
    if (depth > maxDepth)
      throw new Error(`Sub-agents nest at most ${maxDepth} deep (MAX_SUBAGENT_DEPTH); this session cannot start another`);
    const childId = await childSessionId(env, {
      parentId: settings.id,
      runId,
      toolCallId: request.toolCallId,
      parentKeyHash: settings.keyHash,
    });
    const childSettings = this.childSettings(request, childId, depth); // throws for an unknown tool: no child, no row
    const known = sql.exec(`SELECT 1 FROM sub_agents WHERE session_id = ?`, childId).toArray().length > 0;
    // Recorded before the child exists, so a DELETE erases a child a crash left half-started.
    if (!known)
      sql.exec(
        `INSERT INTO sub_agents (session_id, run_id, tool_call_id, created_at) VALUES (?, ?, ?, ?)`,
        childId,
        runId,
        request.toolCallId,
        Date.now(),
      );
    const peer = this.peer(childId);
    const started = await peer.startSubAgent(settings.keyHash, childSettings, request.task);
    if (!started.ok) throw new Error(`Sub-agent "${request.name}" could not start: ${started.message}`);

    // Resumed: the relay goes on after the last child event this session stored for the call.
    const position = { afterSeq: known ? this.lastRelayedSeq(request.toolCallId) : 0 };
    const onAbort = () => void peer.abortSubAgent(settings.keyHash).catch(() => undefined);
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    this.live.set(childId, peer);
    try {
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw new Error("Operation aborted");
        try {
          const follow = await peer.followSubAgent(settings.keyHash, position.afterSeq);
          if (!follow.ok) throw new Error(`Sub-agent "${request.name}" is gone: ${follow.message}`);
          if (follow.value.kind === "done") return toResult(childId, follow.value.outcome);
          await relay(follow.value.events, childId, position, onPartialResult, signal);
          attempt = 0; // it ended at a runEnd: the next follow answers the outcome
        } catch (err) {
          if (attempt >= MAX_REATTACH_ATTEMPTS || signal?.aborted) throw err;
          await new Promise((resolve) => setTimeout(resolve, REATTACH_DELAY_MS * attempt));
        }
      }
    } finally {
      this.live.delete(childId);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** The child's settings: the sub-agent's prompt, model and limit; the parent's key hash, approvals and allowed tools. */
  private childSettings(request: SubAgentRequest, childId: string, depth: number): SessionSettings {
    const { settings } = this.parts;
    const tokensLeft = this.parts.tokensLeft();
    const registry = bundledRegistry();
    const wanted = request.tools ?? Object.keys(registry).filter((name) => !isSubAgent(registry[name]!.getTool()));
    const unknown = wanted.filter((name) => !Object.hasOwn(registry, name));
    if (unknown.length > 0) throw new Error(`Sub-agent "${request.name}" names unknown tool(s): ${unknown.join(", ")}`);
    // Never more than the parent session may use.
    const tools = settings.tools ? wanted.filter((name) => settings.tools!.includes(name)) : [...wanted];
    return {
      id: childId,
      keyHash: settings.keyHash,
      createdAt: Date.now(),
      systemPrompt: request.systemPrompt,
      toolExecution: settings.toolExecution,
      tools,
      requireApproval: settings.requireApproval,
      mcpServers: [],
      ...((request.model ?? settings.model) ? { model: request.model ?? settings.model } : {}),
      ...(request.maxSteps ? { maxSteps: request.maxSteps } : {}),
      // The parent's user owns the child too (it opens it, and the child shares their memory); it is never listed.
      ...(settings.userId === undefined ? {} : { userId: settings.userId }),
      // The parent's run and call: the child's runs are traced as spans inside that call's (run-tracer.ts).
      subAgent: {
        parentId: settings.id,
        toolCallId: request.toolCallId,
        depth,
        ...(this.parts.runId() ? { parentRunId: this.parts.runId()! } : {}),
        // The parent's budget holds inside the child as it runs, not only once its usage comes back.
        ...(tokensLeft === undefined ? {} : { tokenBudget: Math.max(0, tokensLeft) }),
      },
    };
  }

  /** The child seq of the newest child event this session stored as the call's partial result (0: none). */
  private lastRelayedSeq(toolCallId: string): number {
    const row = this.parts.log.newest("toolExecUpdate", toolCallId);
    const seq = row
      ? (JSON.parse(row.json) as { partialResult?: { subAgent?: { event?: { seq?: unknown } } } }).partialResult?.subAgent?.event?.seq
      : undefined;
    return typeof seq === "number" ? seq : 0;
  }

  private peer(childId: string): SubAgentPeer {
    const ns = this.parts.env.AGENT_SESSION;
    return ns.get(ns.idFromName(childId)) as unknown as SubAgentPeer;
  }
}

/**
 * Relays the child's events (SSE bytes) as partial results until its runEnd, keeping `position` at the last
 * child seq relayed. A stream that ends before the runEnd throws, so the caller follows the child again.
 */
async function relay(
  events: ReadableStream<Uint8Array>,
  sessionId: string,
  position: { afterSeq: number },
  onPartialResult: OnPartialResult,
  signal?: AbortSignal,
): Promise<void> {
  const reader = events.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", stop, { once: true });
  const parser = new SseParser();
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error("The sub-agent's event stream ended before its run did");
      for (const item of parser.feed(chunk.value)) {
        if (item.kind !== "message") continue;
        const event = JSON.parse(item.data) as { seq?: number; type?: string };
        if (typeof event.seq === "number") position.afterSeq = event.seq;
        onPartialResult({ subAgent: { sessionId, event } });
        if (event.type === "runEnd") {
          stop();
          return;
        }
      }
    }
  } finally {
    signal?.removeEventListener("abort", stop);
  }
}

function toResult(sessionId: string, outcome: SubAgentOutcome): AgentToolResult {
  const text =
    outcome.text ||
    (outcome.errorMessage
      ? `The sub-agent stopped (${outcome.stopReason}): ${outcome.errorMessage}`
      : `The sub-agent ended (${outcome.stopReason}) without an answer`);
  return {
    content: [{ type: "text", text }],
    details: { sessionId, stopReason: outcome.stopReason, usage: outcome.usage },
    usage: outcome.usage,
    terminate: false,
  };
}
