/**
 * Renders a checked WrittenToolSpec two ways from one template: the TypeScript tool file committed to R2
 * and shipped by redeploy (tools/<name>.ts, the same contract as hand-written tools, importing nothing at
 * run time), and the JavaScript module a Worker Loader runs as a sandboxed draft (same functions, no type
 * annotations, plus a fetch entrypoint). Code bodies are placed verbatim (re-indenting would change
 * multi-line strings), so a line of a body maps to a fixed line of the module.
 */
import { PATTERN_CHECK_JS } from "./schema-patterns.ts";
import type { WrittenToolAuthor, WrittenToolSpec } from "./spec.ts";

/** First line of every rendered tool file; scripts/redeploy.ts only overwrites files that start with it. */
export const WRITTEN_TOOL_MARKER = "// Written by writeTool";
export const DRAFT_MAIN_MODULE = "draft.js";
/** Partial results a draft call keeps to replay after it ends; more are dropped (a draft has no live channel). */
export const MAX_DRAFT_PARTIALS = 100;

export type RenderMeta = { version: number; author: WrittenToolAuthor; writtenAt: string };
export type CodeField = "executeCode" | "validateCode" | "prepareCode";
/** Where each code body starts in the rendered module (1-based line of its first line). */
export type CodeLines = Partial<Record<CodeField, number>>;
export type RenderedModule = { code: string; lines: CodeLines };

// Comments must not be closed or broken by text that came from outside.
const commentSafe = (text: string) => text.replace(/\*\//g, "* /").replace(/[\r\n\u2028\u2029]+/g, " ");

/** Builds the module line by line, remembering where each code body lands. */
class ModuleWriter {
  readonly out: string[] = [];
  readonly lines: CodeLines = {};
  add(...lines: string[]): void {
    for (const line of lines) this.out.push(...line.split("\n"));
  }
  body(field: CodeField, code: string): void {
    this.lines[field] = this.out.length + 1;
    this.out.push(...code.split(/\r\n|\r|\n/));
  }
  toString(): string {
    return `${this.out.join("\n")}\n`;
  }
}

/** The functions shared by both renderings; `ts` adds the TypeScript annotations. */
function writeToolFunctions(w: ModuleWriter, spec: WrittenToolSpec, typed: boolean): void {
  const t = (annotation: string) => (typed ? annotation : "");
  w.add(
    "/** Bindings this tool may use through context.env; none unless an operator grants some on review. */",
    `const GRANTED_BINDINGS${t(": readonly string[]")} = Object.freeze([]);`,
    "",
  );
  if (typed) {
    w.add(
      "// Written code is plain JavaScript that reads its arguments freely, so they are loosely typed on purpose.",
      "// eslint-disable-next-line @typescript-eslint/no-explicit-any",
      "type Args = Record<string, any>;",
      "type Context = { sessionId?: string; toolCallId: string; env: Record<string, unknown> };",
      "",
    );
  }
  w.add(`const inputSchema = ${JSON.stringify(spec.inputSchema, null, 2)};`, "");
  if (spec.prepareCode !== undefined) {
    w.add(`function prepareArgs(args${t(": Args")})${t(": unknown")} {`);
    w.body("prepareCode", spec.prepareCode);
    w.add("}", "");
  }
  if (spec.validateCode !== undefined) {
    w.add(`function validateArgs(args${t(": Args")})${t(": unknown")} {`);
    w.body("validateCode", spec.validateCode);
    w.add("}", "");
  }
  w.add(
    `async function executeTool(args${t(": Args")}, signal${t(": AbortSignal | undefined")}, onPartialResult${t(": OnPartialResult")}, context${t(": Context")})${t(": Promise<unknown>")} {`,
  );
  w.body("executeCode", spec.executeCode);
  w.add(
    "}",
    "",
    "/** A string becomes a text result, a result-shaped object passes through, anything else is sent as JSON. */",
    `const toResult = (value${t(": unknown")})${t(": AgentToolResult")} => {`,
    '  if (typeof value === "string") return { content: [{ type: "text", text: value }], details: {}, terminate: false };',
    `  if (value && typeof value === "object" && Array.isArray(${typed ? "(value as { content?: unknown })" : "value"}.content)) {`,
    `    const result = value${t(" as Partial<AgentToolResult>")};`,
    "    return { content: result.content ?? [], details: result.details ?? {}, terminate: result.terminate === true };",
    "  }",
    '  const text = value === undefined ? "(no result)" : JSON.stringify(value) ?? String(value);',
    '  return { content: [{ type: "text", text }], details: {}, terminate: false };',
    "};",
    "",
    `const grantedEnv = (context${t("?: ToolExecutionContext")})${t(": Record<string, unknown>")} => {`,
    `  const env = (context?.env ?? {})${t(" as Record<string, unknown>")};`,
    "  return Object.fromEntries(GRANTED_BINDINGS.filter((name) => name in env).map((name) => [name, env[name]]));",
    "};",
    "",
    `export function getTool()${t(": AgentTool")} {`,
    "  return {",
    `    name: ${JSON.stringify(spec.name)},`,
    `    label: ${JSON.stringify(spec.label)},`,
    `    description: ${JSON.stringify(spec.description)},`,
    "    inputSchema,",
    `    parallelToolExecute: ${spec.parallel},`,
    "    env: GRANTED_BINDINGS,",
  );
  if (spec.prepareCode !== undefined) {
    w.add(
      `    prepareArguments(args${t(": ToolArguments")}) {`,
      "      const prepared = prepareArgs(args);",
      `      return prepared && typeof prepared === "object" && !Array.isArray(prepared) ? (prepared${t(" as ToolArguments")}) : args;`,
      "    },",
    );
  }
  if (spec.validateCode !== undefined) {
    w.add(
      `    validateRequiredArgs(args${t(": ToolArguments")}) {`,
      "      const problem = validateArgs(args);",
      '      return typeof problem === "string" && problem !== "" ? problem : undefined;',
      "    },",
    );
  }
  w.add(
    `    async execute(toolCallId${t(": string")}, args${t(": ToolArguments")}, signal${t(": AbortSignal | undefined")}, onPartialResult${t(": OnPartialResult")}, context${t("?: ToolExecutionContext")}) {`,
    `      const sessionId = typeof context?.sessionId === "string" ? context.sessionId : undefined;`,
    "      return toResult(await executeTool(args, signal, onPartialResult, { sessionId, toolCallId, env: grantedEnv(context) }));",
    "    },",
    "  };",
    "}",
  );
}

/** tools/<name>.ts as committed to R2 and shipped by redeploy. */
export function renderToolSource(spec: WrittenToolSpec, meta: RenderMeta): RenderedModule {
  const w = new ModuleWriter();
  const by = [meta.author.sessionId && `session ${meta.author.sessionId}`, meta.author.toolCallId && `call ${meta.author.toolCallId}`]
    .filter(Boolean)
    .join(", ");
  w.add(
    `${WRITTEN_TOOL_MARKER}: ${spec.name} v${meta.version}. Review it before deploying; \`npm run redeploy\` ships it.`,
    "/**",
    ` * ${spec.name}: a tool the agent wrote through writeTool (${commentSafe(by || "unknown author")}, ${commentSafe(meta.writtenAt)}).`,
    " * Rendered by src/tools/written/render.ts. Its code sees only its arguments, the abort signal,",
    " * onPartialResult and context {sessionId, toolCallId, env}, where env holds only GRANTED_BINDINGS.",
    " */",
    'import type { AgentTool, AgentToolResult, OnPartialResult, ToolArguments, ToolExecutionContext } from "../src/core/types.ts";',
    "",
  );
  writeToolFunctions(w, spec, true);
  return { code: w.toString(), lines: w.lines };
}

/**
 * The draft module for a Worker Loader. Its fetch entrypoint takes JSON `{phase, toolCallId, sessionId,
 * args}`: "probe" loads the tool, "prepare" runs prepareArguments then validateRequiredArgs (without
 * one, the schema's patterns: schema-patterns.ts), "execute"
 * runs execute and answers `{ok, result, partials}`; failures answer `{ok:false, error}`.
 */
export function renderDraftModule(spec: WrittenToolSpec, guard?: { module: string; imports: string }): RenderedModule {
  const w = new ModuleWriter();
  w.add(`// Draft of written tool ${spec.name}, run by a Worker Loader without network or bindings.`, "");
  // The CPU-limit guard (draft-tool.ts): its step check, called by the instrumented bodies, and its reset.
  if (guard) w.add(`import { ${guard.imports} } from "./${guard.module}";`, "");
  writeToolFunctions(w, spec, false);
  w.add(
    "",
    `const MAX_PARTIALS = ${MAX_DRAFT_PARTIALS};`,
    PATTERN_CHECK_JS,
    "const message = (err) => (err instanceof Error ? err.message || err.name : String(err));",
    "const answer = (body) => {",
    // A draft that caught the CPU limit's error still answers the limit.
    ...(guard ? ["  if (__codeModeTripped()) body = { ok: false, error: __codeModeLimit, partials: body.partials };"] : []),
    "  try {",
    "    return Response.json(body);",
    "  } catch (err) {",
    "    return Response.json({ ok: false, error: `The tool returned a value that is not JSON: ${message(err)}` });",
    "  }",
    "};",
    "",
    "export default {",
    "  async fetch(request, env) {",
    "    const call = await request.json();",
    "    const partials = [];",
    ...(guard ? ["    __codeModeReset();"] : []),
    "    try {",
    "      const tool = getTool();",
    '      if (call.phase === "probe") return answer({ ok: true, name: tool.name });',
    '      if (call.phase === "prepare") {',
    "        const args = tool.prepareArguments ? tool.prepareArguments(call.args) : call.args;",
    "        const problem = tool.validateRequiredArgs ? tool.validateRequiredArgs(args) : patternProblem(inputSchema, args);",
    "        return answer({ ok: true, args, problem });",
    "      }",
    "      const onPartialResult = (partial) => {",
    "        if (partials.length < MAX_PARTIALS) partials.push(partial);",
    "      };",
    "      const result = await tool.execute(call.toolCallId, call.args, request.signal, onPartialResult, { sessionId: call.sessionId, env });",
    "      return answer({ ok: true, result, partials });",
    "    } catch (err) {",
    "      return answer({ ok: false, error: message(err), partials });",
    "    }",
    "  },",
    "};",
  );
  return { code: w.toString(), lines: w.lines };
}
