/**
 * Instruments a model's program for the CPU limit that holds under local workerd too (which does not
 * enforce a Loader isolate's cpuMs, and where Date.now() stands still during CPU work): the program is
 * parsed by acorn (loaded on first use, so the Worker's start-up does not grow) as the body of an async
 * function, and a step check is inserted at the start of every loop iteration, every function body and
 * every catch block (which counts as CATCH_STEPS: a throw is expensive).
 * The check is sticky: once the budget is spent every later check throws too, so a `catch` in the
 * program cannot swallow it (each iteration's check sits before any `try` of that iteration).
 * Called by run-program.ts. Insertions add no line breaks: line N of the program is line N + 1 of the
 * module it builds (PROGRAM_LINE_OFFSET).
 */
import type { Node, Options } from "acorn";

/** The step check's name; a program may use no name with its prefix (checked on the syntax tree, not the text). */
export const STEP = "__codeModeStep";
const RESERVED_PREFIX = "__codeMode";
/** Steps one caught exception counts for: creating and unwinding an error costs microseconds, a step nanoseconds. */
export const CATCH_STEPS = 10_000;
/** Line of the program module on which the program's first line sits, minus one. */
export const PROGRAM_LINE_OFFSET = 1;

export type Instrumented = { ok: true; module: string } | { ok: false; error: string; line?: number };

let acornModule: Promise<typeof import("acorn")> | undefined;

/** The program module (`program.js`): the default export is the program as an async function of (tools, console). */
export async function instrumentProgram(code: string): Promise<Instrumented> {
  const body = await instrumentBody(code, { async: true, params: "tools, console" });
  if (!body.ok) return body;
  return {
    ok: true,
    module: `import { step as ${STEP} } from "./runtime.js"; export default (async function (tools, console) {\n${body.body}\n});\n`,
  };
}

export type InstrumentedBody =
  | { ok: true; body: string }
  | { ok: false; error: string; line?: number; column?: number; syntax?: { message: string } };

/**
 * `code`, the body of a function (async or not, with `params`), with the step check in every loop, nested
 * function and catch block, and once on entry; it keeps its line count, so line N stays line N. Written
 * tools' drafts use it for each of their code bodies (src/tools/written/draft-tool.ts).
 */
export async function instrumentBody(code: string, fn: { async: boolean; params: string }): Promise<InstrumentedBody> {
  acornModule ??= import("acorn");
  const { parse } = await acornModule;
  const header = `(${fn.async ? "async " : ""}function (${fn.params}) {\n`;
  const wrapped = `${header}${code}\n})`;
  let program: Node & { body: Node[] };
  const options: Options = { ecmaVersion: "latest", sourceType: "script", locations: true };
  try {
    program = parse(wrapped, options) as Node & { body: Node[] };
  } catch (err) {
    const loc = (err as { loc?: { line: number; column: number } }).loc;
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s*\(\d+:\d+\)$/, "");
    const line = loc ? Math.max(1, loc.line - 1) : undefined;
    return {
      ok: false,
      error: `SyntaxError: ${message}${line ? ` (line ${line})` : ""}`,
      syntax: { message },
      ...(line ? { line } : {}),
      ...(loc ? { column: loc.column + 1 } : {}),
    };
  }
  // The code must be exactly the function's body: text like `}); other(); (function () {` parses too.
  const statement = program.body[0] as (Node & { expression?: Node & { body?: Node } }) | undefined;
  const root = statement?.expression;
  if (
    program.body.length !== 1 ||
    statement?.type !== "ExpressionStatement" ||
    root?.type !== "FunctionExpression" ||
    root.body?.start !== header.length - 2 ||
    root.body.end !== wrapped.length - 1
  ) {
    return { ok: false, error: "SyntaxError: the code must be the body of one function (unbalanced braces?)" };
  }
  const inserts: { at: number; text: string; closing: boolean }[] = [];
  let reserved: number | undefined;
  walk(program, (node) => {
    if (node.type === "Identifier" && (node as Node & { name: string }).name.startsWith(RESERVED_PREFIX)) reserved ??= node.loc?.start.line;
    const body = (node as Node & { body?: Node }).body;
    if (!body || Array.isArray(body) || node === root) return;
    // A catch runs after a throw, which costs far more than a step (a stack trace): it counts as many.
    if (node.type === "CatchClause") inserts.push({ at: body.start + 1, text: `${STEP}(${CATCH_STEPS});`, closing: false });
    if (isFunction(node) || isLoop(node)) {
      if (body.type === "BlockStatement") inserts.push({ at: body.start + 1, text: `${STEP}();`, closing: false });
      else if (isFunction(node)) {
        inserts.push({ at: body.start, text: `(${STEP}(), `, closing: false }, { at: body.end, text: ")", closing: true });
      } else inserts.push({ at: body.start, text: `{${STEP}();`, closing: false }, { at: body.end, text: "}", closing: true });
    }
  });
  if (reserved !== undefined) {
    const line = Math.max(1, reserved - 1);
    return { ok: false, error: `Names starting with ${RESERVED_PREFIX} are reserved for the CPU limit (line ${line})`, line };
  }
  // Closings before openings at one place: the node that ends there closes before the next one opens.
  inserts.sort((a, b) => a.at - b.at || Number(b.closing) - Number(a.closing));
  let out = "";
  let from = header.length;
  for (const insert of inserts) {
    out += wrapped.slice(from, insert.at) + insert.text;
    from = insert.at;
  }
  out += wrapped.slice(from, wrapped.length - 3);
  // The entry check shares the first line, so line N of the code stays line N.
  return { ok: true, body: `${STEP}();${out}` };
}

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);
const LOOPS = new Set(["ForStatement", "ForInStatement", "ForOfStatement", "WhileStatement", "DoWhileStatement"]);
const isFunction = (node: Node) => FUNCTIONS.has(node.type);
const isLoop = (node: Node) => LOOPS.has(node.type);

/** Visits every node of the tree (every object with a `type` below the root), parents first. */
function walk(root: Node, visit: (node: Node) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    if (!value || typeof value !== "object" || typeof (value as Node).type !== "string") continue;
    visit(value as Node);
    for (const [key, child] of Object.entries(value)) {
      if (key !== "loc" && child && typeof child === "object") stack.push(child);
    }
  }
}
