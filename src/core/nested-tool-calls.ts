/**
 * Nested tool calls: a tool that declares the "toolCalls" capability (code mode's runCode) calls the run's
 * other tools while it runs. Created by the batch (tool-batch.ts) for each such call. Each nested call is
 * call `<parent id>.<n>` (n = 1, 2, … in call order) and goes through the whole pipeline: journal, start
 * event, validation, approval, hooks, timeout, end event; its events carry `parentToolCallId`.
 * Invariants: at most once across restarts — a call the journal knows as ended answers its stored result
 * only when its name and arguments match (else an error result, never a second execution), an executing
 * one gets what any interrupted call gets. Preparation (and so approval) runs in call order; parallel-safe
 * calls execute together (at most `maxParallel`), any other call alone.
 */
import { INTERRUPTED_BY_RESTART } from "./tool-batch.ts";
import {
  ABORTED_MESSAGE,
  emitToolExecutionEnd,
  executePreparedToolCall,
  finalizeExecutedToolCall,
  prepareToolCall,
} from "./tool-pipeline.ts";
import { createErrorToolResult } from "./tool-results.ts";
import type { AgentEvent, EmitEvent } from "./events.ts";
import type {
  AgentContext,
  AgentLoopConfig,
  AgentTool,
  AgentToolCall,
  AgentToolResult,
  AssistantMessage,
  FinalizedOutcome,
  NestedToolCalls,
  ToolArguments,
} from "./types.ts";

/** What a replay says when the program asks for another call than the one the journal holds at that place. */
export const REPLAY_MISMATCH =
  "The program made a different call at this place than before the session restarted; it was not run (a stored call runs at most once)";

/**
 * The fingerprint of a nested call's name and arguments the journal keeps (53-bit FNV-style hash of the
 * canonical JSON). Not a security boundary: it tells a replayed program's call from another one.
 */
export function nestedCallKey(name: string, args: unknown): string {
  const text = `${name}\u0000${canonicalJson(args)}`;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${name}:${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** How many nested calls execute at once at most (the host may lower it: Worker Loader isolates in flight). */
export const DEFAULT_MAX_PARALLEL_NESTED_CALLS = 8;

type Parts = {
  context: AgentContext;
  assistantMessage: AssistantMessage;
  parent: AgentToolCall;
  config: AgentLoopConfig;
  emit: EmitEvent;
  maxParallel?: number;
};

/** What a program's earlier attempt started and its re-run never reached gets, so no start is left without its end. */
export const NOT_REACHED_AGAIN = "The program ran again after the session restarted and did not reach this call again";

export function createNestedToolCalls(parts: Parts): { calls: NestedToolCalls; finish(): Promise<void> } {
  const { context, assistantMessage, parent, emit } = parts;
  let count = 0;
  const listeners: ((waiting: boolean) => void)[] = [];
  const lock = new ExecutionLock(
    Math.min(parts.maxParallel ?? DEFAULT_MAX_PARALLEL_NESTED_CALLS, parts.config.maxParallelToolCalls || Infinity),
  );
  // Preparation (approval included) in call order, as in a parallel batch.
  let preparing: Promise<unknown> = Promise.resolve();
  const humanWait = (waiting: boolean) => {
    for (const listener of listeners) listener(waiting);
  };
  const config: AgentLoopConfig = {
    ...parts.config,
    awaitApproval: parts.config.awaitApproval
      ? async (ctx, signal) => {
          humanWait(true);
          try {
            return await parts.config.awaitApproval!(ctx, signal);
          } finally {
            humanWait(false);
          }
        }
      : undefined,
  };
  // Every event of a nested call names its parent.
  const nestedEmit: EmitEvent = (event: AgentEvent) =>
    emit(
      event.type === "toolExecStart" || event.type === "toolExecUpdate" || event.type === "toolExecEnd"
        ? { ...event, parentToolCallId: parent.id }
        : event,
    );

  const end = async (finalized: FinalizedOutcome) => {
    await emitToolExecutionEnd(finalized, nestedEmit);
    await config.journal?.markEnded(finalized.toolCall, finalized.result, finalized.isError);
    return { result: finalized.result, isError: finalized.isError };
  };
  const fail = (tc: AgentToolCall, message: string) =>
    end({ kind: "finalized", toolCall: tc, result: createErrorToolResult(message), isError: true });

  async function call(name: string, args: unknown, signal?: AbortSignal): Promise<{ result: AgentToolResult; isError: boolean }> {
    count += 1;
    const tc: AgentToolCall = {
      type: "function",
      id: `${parent.id}.${count}`,
      name,
      arguments: (args ?? {}) as ToolArguments,
      parentToolCallId: parent.id,
    };
    const key = nestedCallKey(name, tc.arguments);
    const known = config.journal?.lookup(tc.id);
    if (known && known.key !== undefined && known.key !== key) {
      // Another call than the stored one: never run, never inherit its approval or result.
      return { result: createErrorToolResult(REPLAY_MISMATCH), isError: true };
    }
    if (known?.state === "ended") return { result: known.result, isError: known.isError };
    if (known?.state === "executing" && !context.tools.get(name)?.idempotent) return fail(tc, INTERRUPTED_BY_RESTART);
    if (!known) {
      await nestedEmit({ type: "toolExecStart", toolCallId: tc.id, toolName: name, arguments: tc.arguments });
      await config.journal?.markStarted(tc);
    }
    if (name === parent.name) return fail(tc, `Tool "${name}" cannot be called from its own program`);

    const turn = preparing.then(() => prepareToolCall(context, assistantMessage, tc, config, signal));
    preparing = turn.catch(() => undefined);
    const prepared = await turn;
    if (prepared.kind === "immediate") return end({ kind: "finalized", toolCall: tc, result: prepared.result, isError: prepared.isError });
    const exclusive = config.toolExecution === "sequential" || !prepared.tool.parallelToolExecute;
    return lock.run(exclusive, async () => {
      const executed = signal?.aborted
        ? { kind: "executed" as const, result: createErrorToolResult(ABORTED_MESSAGE), isError: true }
        : await executePreparedToolCall(prepared, config, nestedEmit, signal);
      return end(await finalizeExecutedToolCall(context, assistantMessage, prepared, executed, config, signal));
    });
  }

  /** The caller ended: calls of an earlier attempt past the last one this attempt made end now. */
  async function finish(): Promise<void> {
    for (let n = count + 1; ; n++) {
      const id = `${parent.id}.${n}`;
      const known = config.journal?.lookup(id);
      if (!known) return;
      if (known.state === "ended") continue;
      // The fingerprint starts with the tool's name (nestedCallKey).
      const name = known.key?.slice(0, known.key.indexOf(":")) || "unknown";
      await fail({ type: "function", id, name, arguments: {}, parentToolCallId: parent.id }, NOT_REACHED_AGAIN);
    }
  }

  return {
    calls: {
      tools: () => [...context.tools.values()].filter((tool: AgentTool) => tool.name !== parent.name),
      call,
      onHumanWait: (listener) => void listeners.push(listener),
    },
    finish,
  };
}

/** Shared (parallel-safe) or exclusive turns, at most `max` shared ones at once; first come, first served. */
class ExecutionLock {
  private active = 0;
  private exclusive = false;
  private readonly queue: { exclusive: boolean; start: () => void }[] = [];

  constructor(private readonly max: number) {}

  async run<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    if (!this.canStart(exclusive) || this.queue.length > 0) {
      await new Promise<void>((start) => this.queue.push({ exclusive, start }));
    } else this.enter(exclusive);
    try {
      return await work();
    } finally {
      this.active -= 1;
      if (exclusive) this.exclusive = false;
      this.next();
    }
  }

  private canStart(exclusive: boolean): boolean {
    if (this.exclusive) return false;
    return exclusive ? this.active === 0 : this.active < this.max;
  }

  private enter(exclusive: boolean): void {
    this.active += 1;
    if (exclusive) this.exclusive = true;
  }

  private next(): void {
    while (this.queue.length > 0 && this.canStart(this.queue[0]!.exclusive)) {
      const waiter = this.queue.shift()!;
      this.enter(waiter.exclusive);
      waiter.start();
    }
  }
}
