/**
 * Drafts: a written tool run before any redeploy, in its own Worker Loader isolate with no network
 * (globalOutbound: null) and no bindings (env: {}). The host keeps a proxy AgentTool whose execute posts
 * `{phase, toolCallId, sessionId, args}` to the draft's fetch entrypoint (see renderDraftModule).
 * Partial results are collected in the isolate and replayed, in order, before the call's result.
 * Invariants: the isolate id carries the module's hash, so a new version never reuses an old isolate, and
 * the session's id, so module state a draft keeps between calls never crosses from one session to another.
 */
import { validateAgainstSchema } from "../../core/tool-arguments.ts";
import { describeError, normalizeToolResult } from "../../core/tool-results.ts";
import type { AgentTool, AgentToolResult, ToolArguments } from "../../core/types.ts";
import { DRAFT_MAIN_MODULE, renderDraftModule, type CodeField, type RenderedModule } from "./render.ts";
import type { WrittenToolSpec } from "./spec.ts";
import { sha256Hex } from "./tool-index.ts";

/** The Worker Loader's compatibility date for drafts: the Worker's own, so drafts see the same runtime. */
export const DRAFT_COMPATIBILITY_DATE = "2026-11-01";
/** CPU time one draft request may use; a written tool is small glue code, and a loop must not spin for long. */
export const DRAFT_CPU_MS = 5_000;

type DraftReply = { ok: boolean; error?: string; name?: string; args?: ToolArguments; problem?: string; result?: unknown; partials?: unknown[] };

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

class Draft {
  private readonly rendered: RenderedModule;
  private id?: Promise<string>;

  constructor(
    private readonly loader: WorkerLoader,
    readonly spec: WrittenToolSpec,
    private readonly scope: string,
  ) {
    this.rendered = renderDraftModule(spec);
  }

  /** Posts one request to the draft's isolate; a module that fails to start becomes a readable Error. */
  async call(body: Record<string, unknown>, signal?: AbortSignal): Promise<DraftReply> {
    this.id ??= sha256Hex(this.rendered.code).then((hash) => `written-draft:${this.spec.name}:${hash}:${this.scope}`);
    const stub = this.loader.get(await this.id, () => ({
      compatibilityDate: DRAFT_COMPATIBILITY_DATE,
      mainModule: DRAFT_MAIN_MODULE,
      modules: { [DRAFT_MAIN_MODULE]: this.rendered.code },
      env: {},
      globalOutbound: null,
      limits: { cpuMs: DRAFT_CPU_MS },
    }));
    let response: Response;
    try {
      response = await stub.getEntrypoint().fetch("https://draft.invalid/", { method: "POST", body: JSON.stringify(body), signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      const message = locateInCode(describeError(err).replace(/^Failed to start Worker:\s*/, ""), this.rendered, this.spec);
      const hint = /SyntaxError/.test(message) ? " Write plain JavaScript: drafts run without a TypeScript compiler." : "";
      throw new Error(`The draft of tool "${this.spec.name}" failed to load: ${message.trim()}.${hint}`);
    }
    return (await response.json()) as DraftReply;
  }
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
 * its own validation until then; without them the host validates against the schema as for any tool.
 */
export function createDraftTool(loader: WorkerLoader, spec: WrittenToolSpec, scope: string): AgentTool {
  const draft = new Draft(loader, spec, scope);
  const preparesInIsolate = spec.prepareCode !== undefined || spec.validateCode !== undefined;
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
          const invalid = validateAgainstSchema(callArgs, spec.inputSchema, spec.name);
          if (invalid) throw new Error(invalid);
        }
      }
      const sessionId = typeof context?.sessionId === "string" ? context.sessionId : undefined;
      const reply = await draft.call({ phase: "execute", toolCallId, sessionId, args: callArgs }, signal);
      for (const partial of reply.partials ?? []) onPartialResult(partial);
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
