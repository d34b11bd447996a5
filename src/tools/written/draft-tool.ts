/**
 * Drafts: a written tool run before any redeploy, in its own Worker Loader isolate with no network
 * (globalOutbound: null) and no bindings (env: {}). The host keeps a proxy AgentTool whose execute posts
 * `{phase, toolCallId, sessionId, args}` to the draft's fetch entrypoint (see renderDraftModule).
 * Partial results are collected in the isolate and replayed, in order, before the call's result.
 * What comes back is bounded: the reply by bytes, the replayed partials by count and bytes each.
 * Invariants: the isolate id carries the module's hash, so a new version never reuses an old isolate, and
 * the session's id, so module state a draft keeps between calls never crosses from one session to another.
 */
import { validateAgainstSchema } from "../../core/index.ts";
import { describeError, normalizeToolResult } from "../../core/index.ts";
import type { AgentTool, AgentToolResult, ToolArguments } from "../../core/index.ts";
import { instrumentBody } from "../../code-mode/instrument.ts";
import { DRAFT_GUARD_IMPORTS, DRAFT_GUARD_MODULE, DRAFT_GUARD_SOURCE } from "../../code-mode/runner-module.ts";
import { DRAFT_MAIN_MODULE, renderDraftModule, type CodeField, type RenderedModule } from "./render.ts";
import { hasPatterns, withoutPatterns } from "./schema-patterns.ts";
import type { WrittenToolSpec } from "./spec.ts";
import { sha256Hex } from "./tool-index.ts";

/** The Worker Loader's compatibility date for drafts: the Worker's own, so drafts see the same runtime. */
export const DRAFT_COMPATIBILITY_DATE = "2026-11-01";
/**
 * CPU time one draft request may use; a written tool is small glue code, and a loop must not spin for long.
 * Production enforces it; local workerd does not, so the draft's code bodies also carry code mode's step
 * check (src/code-mode/instrument.ts), reset at each request.
 */
export const DRAFT_CPU_MS = 5_000;

/** Bytes of one reply the host reads from a draft; a tool result is stored in a row of at most 2 MB. */
export const MAX_DRAFT_REPLY_BYTES = 1_000_000;
/** Partial results the host replays from one call, and the bytes of JSON each may have. */
export const MAX_REPLAYED_PARTIALS = 20;
export const MAX_PARTIAL_BYTES = 16_384;

type DraftReply = {
  ok: boolean;
  error?: string;
  name?: string;
  args?: ToolArguments;
  problem?: string;
  result?: unknown;
  partials?: unknown[];
};

const draftTools = new WeakSet<AgentTool>();

/** Whether a tool in a store is a draft proxy (bundled tools always win over drafts). */
export const isDraftTool = (tool: AgentTool | undefined): boolean => tool !== undefined && draftTools.has(tool);

/** "at draft.js:12:5" → "executeCode line 3, column 5", so the model can find the line it wrote. */
export function locateInCode(message: string, rendered: RenderedModule, spec: WrittenToolSpec): string {
  return message.replace(new RegExp(`${DRAFT_MAIN_MODULE.replace(".", "\\.")}:(\\d+):(\\d+)`, "g"), (whole, l: string, c: string) => {
    const line = Number(l);
    for (const field of ["executeCode", "validateCode", "prepareCode"] as CodeField[]) {
      const start = rendered.lines[field];
      const code = spec[field];
      if (start === undefined || code === undefined) continue;
      const count = code.split(/\r\n|\r|\n/).length;
      if (line >= start && line < start + count) return `${field} line ${line - start + 1}, column ${c}`;
    }
    return whole;
  });
}

/** The draft module with the step check in each code body (line for line, so error lines still map). */
async function renderGuardedDraft(spec: WrittenToolSpec): Promise<RenderedModule> {
  const guarded: WrittenToolSpec = { ...spec };
  const bodies: [CodeField, boolean, string][] = [
    ["executeCode", true, "args, signal, onPartialResult, context"],
    ["validateCode", false, "args"],
    ["prepareCode", false, "args"],
  ];
  for (const [field, isAsync, params] of bodies) {
    const code = spec[field];
    if (code === undefined) continue;
    const instrumented = await instrumentBody(code, { async: isAsync, params });
    if (!instrumented.ok) {
      // Worded as the runtime words a module that fails to start (Draft.call), with the line in the field.
      const where = instrumented.line ? ` at ${field} line ${instrumented.line}, column ${instrumented.column ?? 1}` : ` in ${field}`;
      const problem = instrumented.syntax ? `Uncaught SyntaxError: ${instrumented.syntax.message}` : instrumented.error;
      const hint = instrumented.syntax ? " Write plain JavaScript: drafts run without a TypeScript compiler." : "";
      throw new Error(`The draft of tool "${spec.name}" failed to load: ${problem}${where}.${hint}`);
    }
    guarded[field] = instrumented.body;
  }
  return renderDraftModule(guarded, { module: DRAFT_GUARD_MODULE, imports: DRAFT_GUARD_IMPORTS });
}

class Draft {
  private rendered?: Promise<RenderedModule>;
  private id?: Promise<string>;

  constructor(
    private readonly loader: WorkerLoader,
    readonly spec: WrittenToolSpec,
    private readonly scope: string,
  ) {}

  /** Posts one request to the draft's isolate; a module that fails to start becomes a readable Error. */
  async call(body: Record<string, unknown>, signal?: AbortSignal): Promise<DraftReply> {
    this.rendered ??= renderGuardedDraft(this.spec);
    const rendered = await this.rendered;
    this.id ??= sha256Hex(rendered.code).then((hash) => `written-draft:${this.spec.name}:${hash}:${this.scope}`);
    const stub = this.loader.get(await this.id, () => ({
      compatibilityDate: DRAFT_COMPATIBILITY_DATE,
      mainModule: DRAFT_MAIN_MODULE,
      modules: { [DRAFT_MAIN_MODULE]: rendered.code, [DRAFT_GUARD_MODULE]: DRAFT_GUARD_SOURCE },
      env: {},
      globalOutbound: null,
      limits: { cpuMs: DRAFT_CPU_MS },
    }));
    let response: Response;
    try {
      response = await stub.getEntrypoint().fetch("https://draft.invalid/", { method: "POST", body: JSON.stringify(body), signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      const message = locateInCode(describeError(err).replace(/^Failed to start Worker:\s*/, ""), rendered, this.spec);
      const hint = /SyntaxError/.test(message) ? " Write plain JavaScript: drafts run without a TypeScript compiler." : "";
      throw new Error(`The draft of tool "${this.spec.name}" failed to load: ${message.trim()}.${hint}`);
    }
    return readReply(response, this.spec.name);
  }
}

/** The reply's JSON, read only up to MAX_DRAFT_REPLY_BYTES: a draft cannot make the host buffer more. */
async function readReply(response: Response, name: string): Promise<DraftReply> {
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = reader ? await reader.read() : { done: true, value: undefined };
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DRAFT_REPLY_BYTES) {
      await reader?.cancel();
      throw new Error(`The draft of tool "${name}" answered more than ${MAX_DRAFT_REPLY_BYTES} bytes; return less`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as DraftReply;
  } catch {
    throw new Error(`The draft of tool "${name}" answered something that is not JSON`);
  }
}

/** The partial results to replay: the first MAX_REPLAYED_PARTIALS, each too large one replaced by a note. */
export function replayablePartials(partials: unknown): unknown[] {
  if (!Array.isArray(partials)) return [];
  const kept = partials.slice(0, MAX_REPLAYED_PARTIALS).map((partial) => {
    const size = new TextEncoder().encode(JSON.stringify(partial) ?? "").length;
    return size > MAX_PARTIAL_BYTES
      ? { note: `a partial result of ${size} bytes was left out (the limit is ${MAX_PARTIAL_BYTES})` }
      : partial;
  });
  if (partials.length > MAX_REPLAYED_PARTIALS)
    kept.push({ note: `${partials.length - MAX_REPLAYED_PARTIALS} more partial results were left out` });
  return kept;
}

/** Loads the draft once and calls getTool(); returns why it cannot run, or undefined when it can. */
export async function probeDraft(loader: WorkerLoader, spec: WrittenToolSpec, scope: string): Promise<string | undefined> {
  try {
    const reply = await new Draft(loader, spec, scope).call({ phase: "probe" });
    return reply.ok ? undefined : `getTool() of the draft failed: ${reply.error ?? "unknown error"}`;
  } catch (err) {
    return describeError(err);
  }
}

/**
 * The proxy a session registers; `scope` (the session id) keeps its isolate to that session. With prepareCode or validateCode the arguments are prepared and checked
 * inside the isolate first (the contract's hooks are synchronous and cannot reach it), so the host skips
 * its own validation until then; so too with patterns in the schema, which only the isolate runs.
 * Without any of these the host validates against the schema as for any tool.
 */
export function createDraftTool(loader: WorkerLoader, spec: WrittenToolSpec, scope: string): AgentTool {
  const draft = new Draft(loader, spec, scope);
  // Model-written regexes run in the isolate only (schema-patterns.ts); the host checks the rest.
  const preparesInIsolate = spec.prepareCode !== undefined || spec.validateCode !== undefined || hasPatterns(spec.inputSchema);
  const hostSchema = withoutPatterns(spec.inputSchema);
  const tool: AgentTool = {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    inputSchema: spec.inputSchema,
    parallelToolExecute: spec.parallel,
    async execute(toolCallId, args, signal, onPartialResult, context): Promise<AgentToolResult> {
      let callArgs = args;
      if (preparesInIsolate) {
        const prepared = await draft.call({ phase: "prepare", args }, signal);
        if (!prepared.ok) throw new Error(`Preparing arguments for tool "${spec.name}" failed: ${prepared.error ?? "unknown error"}`);
        if (typeof prepared.problem === "string" && prepared.problem) throw new Error(prepared.problem);
        callArgs = prepared.args ?? args;
        if (spec.validateCode === undefined) {
          const invalid = validateAgainstSchema(callArgs, hostSchema, spec.name);
          if (invalid) throw new Error(invalid);
        }
      }
      const sessionId = typeof context?.sessionId === "string" ? context.sessionId : undefined;
      const reply = await draft.call({ phase: "execute", toolCallId, sessionId, args: callArgs }, signal);
      for (const partial of replayablePartials(reply.partials)) onPartialResult(partial);
      if (!reply.ok) throw new Error(reply.error ?? "The draft failed without a message");
      const normalized = normalizeToolResult(reply.result);
      if (!normalized.ok) throw new Error(normalized.error);
      return normalized.result;
    },
  };
  if (preparesInIsolate) tool.validateRequiredArgs = () => undefined;
  draftTools.add(tool);
  return tool;
}
