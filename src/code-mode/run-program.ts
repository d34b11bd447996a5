/**
 * Runs one code-mode program in a fresh Worker Loader isolate: no network (globalOutbound: null), no
 * bindings (env: {}), a production CPU limit (cpuMs) and the instrumented step limit that holds locally
 * (instrument.ts). The only way out is the ToolDispatcher passed to the isolate's CodeRunner.run as an RPC
 * stub: each `tools.x(args)` reaches `dispatch`, which runs the nested call through the session's pipeline.
 * Called by run-code-tool.ts. Invariants: every isolate is new (nothing a program keeps survives it); a
 * dispatcher answers nothing after its program ended; the wall-clock limit pauses while a nested call
 * waits for a person; the result is bounded.
 */
import { RpcTarget } from "cloudflare:workers";
import { describeError } from "../core/index.ts";
import { instrumentProgram } from "./instrument.ts";
import { pausableDeadline } from "./pausable-deadline.ts";
import { CPU_LIMIT_MESSAGE, RUNNER_MODULE, RUNTIME_MODULE } from "./runner-module.ts";

/** The isolate's compatibility date: the Worker's own (as drafts). */
const COMPATIBILITY_DATE = "2026-11-01";
/** CPU a program's isolate may use in production (enforced there; locally the step limit stands in). */
export const CODE_CPU_MS = 5_000;
/** Characters of the `arguments` JSON one nested call may send, and nested calls one program may make. */
export const MAX_NESTED_ARGUMENT_CHARS = 200_000;
export const MAX_NESTED_CALLS = 200;
/** Characters of the returned value's JSON kept in the result. */
export const MAX_RETURNED_CHARS = 100_000;

export type DispatchReply = { isError: boolean; text: string };
export type ProgramOutcome = { ok: true; returned: unknown; logs: string[] } | { ok: false; error: string; line?: number; logs: string[] };

type RunnerReply = { ok: boolean; returned?: string; error?: string; line?: number; cpu?: boolean; logs?: unknown };
type CodeRunnerRpc = { run(dispatcher: ToolDispatcher, names: string[]): Promise<RunnerReply> };

/** The session's side of the isolate's `tools`: refuses calls after the program ended or past the limit. */
class ToolDispatcher extends RpcTarget {
  private calls = 0;
  closed = false;
  readonly inFlight = new Set<Promise<unknown>>();

  /** Aborted when the program is stopped (timeout, abort): its calls still running stop too. */
  readonly stop = new AbortController();

  constructor(private readonly dispatch: (name: string, args: unknown, signal: AbortSignal) => Promise<DispatchReply>) {
    super();
  }

  async call(name: unknown, argsJson: unknown): Promise<DispatchReply> {
    if (this.closed) return { isError: true, text: "The program has ended; no more tool calls" };
    if (typeof name !== "string" || typeof argsJson !== "string") return { isError: true, text: "Malformed tool call" };
    if (++this.calls > MAX_NESTED_CALLS) return { isError: true, text: `A program may make at most ${MAX_NESTED_CALLS} tool calls` };
    if (argsJson.length > MAX_NESTED_ARGUMENT_CHARS)
      return {
        isError: true,
        text: `The arguments of tools.${name} are ${argsJson.length} characters of JSON; at most ${MAX_NESTED_ARGUMENT_CHARS}`,
      };
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      return { isError: true, text: "The arguments are not JSON" };
    }
    const pending = this.dispatch(name, args, this.stop.signal);
    this.inFlight.add(pending);
    try {
      return await pending;
    } finally {
      this.inFlight.delete(pending);
    }
  }
}

export type RunProgramOptions = {
  loader: WorkerLoader;
  code: string;
  toolNames: string[];
  /** Runs one nested call; `signal` aborts when the program is stopped. */
  dispatch: (name: string, args: unknown, signal: AbortSignal) => Promise<DispatchReply>;
  /** Wall-clock limit, not counting time a nested call waits for a person. */
  timeoutMs: number;
  /** Tells when nested calls start and stop waiting for a person. */
  onHumanWait: (listener: (waiting: boolean) => void) => void;
  signal?: AbortSignal;
};

export async function runProgram(options: RunProgramOptions): Promise<ProgramOutcome> {
  const instrumented = await instrumentProgram(options.code);
  if (!instrumented.ok)
    return { ok: false, error: instrumented.error, ...(instrumented.line ? { line: instrumented.line } : {}), logs: [] };
  const dispatcher = new ToolDispatcher(options.dispatch);
  // load(), not get(id): a one-off isolate nothing else can reach or reuse.
  const stub = options.loader.load({
    compatibilityDate: COMPATIBILITY_DATE,
    mainModule: "runner.js",
    modules: { "runner.js": RUNNER_MODULE, "runtime.js": RUNTIME_MODULE, "program.js": instrumented.module },
    env: {},
    globalOutbound: null,
    limits: { cpuMs: CODE_CPU_MS },
  });
  const runner = stub.getEntrypoint("CodeRunner") as unknown as CodeRunnerRpc & Partial<Disposable>;
  const deadline = pausableDeadline(options.timeoutMs, options.onHumanWait);
  const stopped = new Promise<ProgramOutcome>((resolve) => {
    deadline.expired.then(() =>
      resolve({
        ok: false,
        error: `Timeout: the program ran longer than ${options.timeoutMs} ms (time waiting for a person not counted)`,
        logs: [],
      }),
    );
    const onAbort = () => resolve({ ok: false, error: "Operation aborted", logs: [] });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
  const ran = runner.run(dispatcher, options.toolNames).then(readReply, (err: unknown): ProgramOutcome => {
    const message = describeError(err);
    // Production's cpuMs ends the isolate with an exception of its own.
    if (/cpu|exceeded/i.test(message)) return { ok: false, error: CPU_LIMIT_MESSAGE, logs: [] };
    return { ok: false, error: `The program's isolate failed: ${message}`, logs: [] };
  });
  let ended = false;
  try {
    const first = await Promise.race([ran.then((o) => ({ o, ended: true })), stopped.then((o) => ({ o, ended: false }))]);
    ended = first.ended;
    return first.o;
  } finally {
    dispatcher.closed = true;
    // A program that ended on its own lets the calls it did not await finish; a stopped one stops them.
    if (!ended) dispatcher.stop.abort();
    deadline.clear();
    // Calls the program started but did not await still end inside the runCode call, never after it.
    await Promise.allSettled([...dispatcher.inFlight]);
    runner[Symbol.dispose]?.();
  }
}

function readReply(reply: RunnerReply): ProgramOutcome {
  const logs = Array.isArray(reply.logs) ? reply.logs.filter((l): l is string => typeof l === "string") : [];
  if (reply.cpu) return { ok: false, error: CPU_LIMIT_MESSAGE, logs };
  if (!reply.ok) {
    const line = typeof reply.line === "number" && reply.line >= 1 ? reply.line : undefined;
    const error = `${reply.error ?? "The program failed"}${line ? ` (line ${line})` : ""}`;
    return { ok: false, error, ...(line ? { line } : {}), logs };
  }
  const text = reply.returned ?? "null";
  if (text.length > MAX_RETURNED_CHARS) {
    return {
      ok: true,
      returned: {
        note: `the returned value was ${text.length} characters of JSON; the first ${MAX_RETURNED_CHARS} are kept`,
        start: text.slice(0, MAX_RETURNED_CHARS),
      },
      logs,
    };
  }
  return { ok: true, returned: JSON.parse(text) as unknown, logs };
}
