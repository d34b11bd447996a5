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

/** The step check's name; a program may not use it (checked on the syntax tree, not the text). */
export const STEP = "__codeModeStep";
const HEADER = "(async function (tools, console) {\n";
/** Steps one caught exception counts for: creating and unwinding an error costs microseconds, a step nanoseconds. */
export const CATCH_STEPS = 10_000;
/** Line of the program module on which the program's first line sits, minus one. */
export const PROGRAM_LINE_OFFSET = 1;

export type Instrumented = { ok: true; module: string } | { ok: false; error: string; line?: number };

let acornModule: Promise<typeof import("acorn")> | undefined;

/** The program module (`program.js`): the default export is the program as an async function of (tools, console). */
export async function instrumentProgram(code: string): Promise<Instrumented> {
  acornModule ??= import("acorn");
  const { parse } = await acornModule;
  const wrapped = `${HEADER}${code}\n})`;
  let program: Node & { body: Node[] };
  const options: Options = { ecmaVersion: "latest", sourceType: "script", locations: true };
  try {
    program = parse(wrapped, options) as Node & { body: Node[] };
  } catch (err) {
    const loc = (err as { loc?: { line: number; column: number } }).loc;
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s*\(\d+:\d+\)$/, "");
    const line = loc ? Math.max(1, loc.line - 1) : undefined;
    return { ok: false, error: `SyntaxError: ${message}${line ? ` (line ${line})` : ""}`, ...(line ? { line } : {}) };
  }
  // The program must be exactly the function's body: text like `}); other(); (function () {` parses too.
  const statement = program.body[0] as (Node & { expression?: Node & { body?: Node; async?: boolean } }) | undefined;
  const fn = statement?.expression;
  if (
    program.body.length !== 1 ||
    statement?.type !== "ExpressionStatement" ||
    fn?.type !== "FunctionExpression" ||
    fn.body?.start !== HEADER.length - 2 ||
    fn.body.end !== wrapped.length - 1
  ) {
    return { ok: false, error: "SyntaxError: the code must be the body of one function (unbalanced braces?)" };
  }
  const inserts: { at: number; text: string; closing: boolean }[] = [];
  let reserved: number | undefined;
  walk(program, (node) => {
    if (node.type === "Identifier" && (node as Node & { name: string }).name === STEP) reserved ??= node.loc?.start.line;
    const body = (node as Node & { body?: Node }).body;
    if (!body || Array.isArray(body)) return;
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
    return { ok: false, error: `The name ${STEP} is reserved for the CPU limit (line ${line})`, line };
  }
  // Closings before openings at one place: the node that ends there closes before the next one opens.
  inserts.sort((a, b) => a.at - b.at || Number(b.closing) - Number(a.closing));
  let out = "";
  let from = 0;
  for (const insert of inserts) {
    out += wrapped.slice(from, insert.at) + insert.text;
    from = insert.at;
  }
  out += wrapped.slice(from);
  return { ok: true, module: `import { step as ${STEP} } from "./runtime.js"; export default ${out};\n` };
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
