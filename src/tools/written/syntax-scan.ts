/**
 * A lexical scan of a written tool's code body, used by writeTool's checks instead of parsing (Workers
 * forbid eval/new Function). It tracks strings, template literals (with nested `${}`), comments, regex
 * literals and brackets, so a body that passes cannot close the function it is placed in or leave a
 * string open. It also refuses `import`/`export`, which would reach modules around the sandbox.
 * Not a parser and not a wall: fast feedback for the model. The walls are the draft sandbox (a Worker
 * Loader isolate) and, at redeploy, the TypeScript parser (scripts/redeploy/structure-check.ts).
 */

export type ScanProblem = { line: number; column: number; message: string };

const CLOSERS: Readonly<Record<string, string>> = { ")": "(", "]": "[", "}": "{" };
/** After these tokens a `/` starts a regex literal; after anything else it divides. */
const REGEX_AFTER_PUNCTUATORS = new Set("(,=:[!&|?{};+-*%<>~^".split(""));
const REGEX_AFTER_KEYWORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);
/** Keywords a function body may not use: they would load modules the sandbox does not grant. */
const FORBIDDEN_KEYWORDS: Readonly<Record<string, string>> = {
  import: "import is not allowed in written tools: they get no modules, only their arguments and context",
  export: "export is not allowed inside a tool body",
};

/** What ends a line comment (and a line, for string literals): LF, CR, LS and PS. */
const LINE_TERMINATORS = new Set(["\n", "\r", "\u2028", "\u2029"]);
/** `<!--` and `-->` are comments in classic scripts but not in modules: refuse them rather than guess. */
const HTML_COMMENTS = ["<!--", "-->"];

type Frame = { open: string; line: number; column: number };

/** Returns the first problem found in `code`, or undefined when its brackets, strings and comments balance. */
export function scanCodeBody(code: string): ScanProblem | undefined {
  const stack: Frame[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  // The last significant token, to tell a regex literal from a division.
  let previous = "";
  const at = (index: number) => ({ line, column: index - lineStart + 1 });
  const problem = (index: number, message: string): ScanProblem => ({ ...at(index), message });
  const newline = (index: number) => {
    line += 1;
    lineStart = index + 1;
  };

  /** Scans a template literal's text from `i` (after a backtick or a closing `}` of `${`). */
  const scanTemplateText = (start: number): { end: number; opensExpression: boolean } | ScanProblem => {
    let j = start;
    while (j < code.length) {
      const c = code[j]!;
      if (c === "\\") j += 2;
      else if (c === "`") return { end: j + 1, opensExpression: false };
      else if (c === "$" && code[j + 1] === "{") return { end: j + 2, opensExpression: true };
      else {
        if (c === "\n") newline(j);
        j += 1;
      }
    }
    return problem(start, "unterminated template literal");
  };
  /** Continues a template literal whose text starts after `openedAt` (a backtick, or the `}` closing a `${`). */
  const continueTemplate = (openedAt: number): ScanProblem | undefined => {
    const scanned = scanTemplateText(openedAt + 1);
    if ("message" in scanned) return scanned;
    if (scanned.opensExpression) stack.push({ open: "${", ...at(openedAt) });
    i = scanned.end;
    previous = scanned.opensExpression ? "{" : "string";
    return undefined;
  };

  while (i < code.length) {
    const c = code[i]!;
    if (c === "\n") {
      newline(i);
      i += 1;
      continue;
    }
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    if (c === "/" && code[i + 1] === "/") {
      // JavaScript ends a line comment at any line terminator, not only at "\n".
      while (i < code.length && !LINE_TERMINATORS.has(code[i]!)) i += 1;
      continue;
    }
    if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      if (end < 0) return problem(i, "unterminated block comment");
      for (let j = i; j < end; j++) if (code[j] === "\n") newline(j);
      i = end + 2;
      continue;
    }
    if (HTML_COMMENTS.some((marker) => code.startsWith(marker, i))) return problem(i, "HTML-like comments (<!-- and -->) are not allowed");
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < code.length && code[j] !== c) {
        if (code[j] === "\n" || code[j] === "\r") return problem(i, "unterminated string literal");
        j += code[j] === "\\" ? 2 : 1;
      }
      if (j >= code.length) return problem(i, "unterminated string literal");
      i = j + 1;
      previous = "string";
      continue;
    }
    if (c === "`") {
      const failed = continueTemplate(i);
      if (failed) return failed;
      continue;
    }
    if (c === "/") {
      if (previous === "" || REGEX_AFTER_PUNCTUATORS.has(previous) || REGEX_AFTER_KEYWORDS.has(previous)) {
        let j = i + 1;
        let inClass = false;
        while (j < code.length && (inClass || code[j] !== "/")) {
          if (code[j] === "\n") return problem(i, "unterminated regular expression");
          if (code[j] === "\\") j += 1;
          else if (code[j] === "[") inClass = true;
          else if (code[j] === "]") inClass = false;
          j += 1;
        }
        if (j >= code.length) return problem(i, "unterminated regular expression");
        i = j + 1;
        while (i < code.length && /[A-Za-z]/.test(code[i]!)) i += 1; // flags
        previous = "regex";
        continue;
      }
      previous = "/";
      i += 1;
      continue;
    }
    if (/[A-Za-z_$\\]/.test(c) || c.charCodeAt(0) > 127) {
      let j = i + 1;
      while (j < code.length && (/[A-Za-z0-9_$\\]/.test(code[j]!) || code.charCodeAt(j) > 127)) j += 1;
      const word = code.slice(i, j);
      // `obj.import` is a property name, not the keyword.
      const isProperty = previous === ".";
      const forbidden = FORBIDDEN_KEYWORDS[word];
      if (forbidden && !isProperty) return problem(i, forbidden);
      // `o.return /1` divides: a keyword after a dot is a property name, and a slash after a name divides.
      previous = isProperty ? "name" : word;
      i = j;
      continue;
    }
    if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < code.length && /[0-9A-Za-z_.]/.test(code[j]!)) j += 1;
      previous = "number";
      i = j;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") {
      stack.push({ open: c, ...at(i) });
    } else if (c === ")" || c === "]" || c === "}") {
      const top = stack.pop();
      if (!top) return problem(i, `unmatched "${c}": it would close the function the code is placed in`);
      if (top.open === "${" && c === "}") {
        const failed = continueTemplate(i);
        if (failed) return failed;
        continue;
      }
      if (top.open !== CLOSERS[c]) {
        return problem(i, `"${c}" does not match "${top.open}" opened at line ${top.line}, column ${top.column}`);
      }
      // `)`, `]` and `}` end an expression (or a block): a following `/` is read as a division.
      previous = c === "}" ? "}" : "value";
      i += 1;
      continue;
    }
    previous = c;
    i += 1;
  }
  const open = stack.at(-1);
  if (open) return { line: open.line, column: open.column, message: `"${open.open}" is never closed` };
  return undefined;
}
