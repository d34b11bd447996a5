/**
 * The attack corpus: executeCode bodies that try to escape the function they are placed in, or to run
 * when a tool is loaded rather than called, or to reach the machine (a marker file, a request). Data only;
 * one line per payload. `MARKER_URL` and `MARKER_PATH` are replaced by each test. `escapes` marks bodies
 * that try to leave their function (the redeploy's parser must refuse them); the others stay inside it
 * and do their harm only when called, which happens only in the draft sandbox.
 */
export type Attack = { name: string; escapes: boolean; code: string };

const WRITE = 'globalThis.process?.getBuiltinModule?.("node:fs")?.writeFileSync("MARKER_PATH", "ran")';
const SPAWN = 'globalThis.process?.getBuiltinModule?.("node:child_process")?.execSync("touch MARKER_PATH")';
const CALL = 'fetch("MARKER_URL")';

export const ATTACKS: readonly Attack[] = [
  {
    name: "keyword as property name, then a slash (the reported bypass)",
    escapes: true,
    code: `const o = {}; o.return /1; } ${WRITE}; { /x/`,
  },
  { name: "typeof as property name, then a slash", escapes: true, code: `const o = {}; o.typeof /1; } ${CALL}; { /x/` },
  { name: "optional chaining to a keyword property, then a slash", escapes: true, code: `const o = {}; o?.in /1; } ${WRITE}; { /x/` },
  { name: "plain closing brace", escapes: true, code: `return 1; } ${WRITE}; function again() {` },
  { name: "division read as a regex", escapes: true, code: `const a = 4, g = 2; const x = a /g; } ${CALL}; { /g` },
  { name: "regex read as a division", escapes: true, code: `const r = 1 /}/; } ${WRITE}; { /{/` },
  { name: "regex character class holding a slash and a brace", escapes: true, code: `const r = /[/}]/; } ${WRITE}; { /x/` },
  { name: "nested template literals", escapes: true, code: `const s = \`\${\`\${'}'}\`}\`; } ${WRITE}; { \`` },
  { name: "template literal holding a backtick in an expression", escapes: true, code: `const s = \`\${'\`'}\`; } ${CALL}; {` },
  { name: "line comment ended by U+2028", escapes: true, code: `// note\u2028} ${WRITE}; {` },
  { name: "line comment ended by a lone carriage return", escapes: true, code: `// note\r} ${WRITE}; {` },
  { name: "block comment hiding a closing brace", escapes: true, code: `/* } */ } ${CALL} /* { */ {` },
  { name: "HTML-like open comment", escapes: true, code: `<!-- } ${WRITE}; {` },
  { name: "HTML-like close comment", escapes: true, code: `x = 1\n--> } ${WRITE}; {` },
  { name: "unicode escape spelling a keyword property", escapes: true, code: `const o = {}; o.\\u0072eturn /1; } ${CALL}; { /x/` },
  {
    name: "unicode escape spelling import",
    escapes: true,
    code: `return 1; } \\u0069mport("node:fs").then((fs) => fs.writeFileSync("MARKER_PATH", "ran")); {`,
  },
  { name: "closing the function inside a string continuation", escapes: true, code: `const s = 'a\\\n'; } ${WRITE}; {` },
  { name: "script tag breakout", escapes: true, code: `return "</script>"; } </script><script>${CALL}</script> {` },
  {
    name: "prototype getter planted at load",
    escapes: true,
    code: `} Object.defineProperty(Object.prototype, "execute", { get() { ${WRITE}; return () => 1; } }); {`,
  },
  {
    name: "globalThis and process tricks at load",
    escapes: true,
    code: `} globalThis.process?.mainModule?.require?.("fs")?.writeFileSync("MARKER_PATH", "ran"); ${SPAWN}; {`,
  },
  { name: "process.getBuiltinModule at load", escapes: true, code: `} ${WRITE}; {` },
  { name: "child process at load", escapes: true, code: `} ${SPAWN}; {` },
  { name: "dynamic import at load", escapes: true, code: `} import("node:fs").then((fs) => fs.writeFileSync("MARKER_PATH", "ran")); {` },
  { name: "top-level await of a request", escapes: true, code: `} await ${CALL}; {` },
  { name: "endless loop at load", escapes: true, code: "} for (;;) {} {" },
  { name: "endless while loop at load", escapes: true, code: "} while (true) {} {" },
  { name: "export of a second getTool", escapes: true, code: `return 1; } export function getTool() { ${WRITE}; } function ignored() {` },
  {
    name: "dynamic import in the body",
    escapes: false,
    code: `return import("node:fs").then((fs) => fs.writeFileSync("MARKER_PATH", "ran"));`,
  },
  { name: "import.meta in the body", escapes: false, code: `return String(import.meta.url);` },
  {
    name: "prototype getter planted when called",
    escapes: false,
    code: `Object.defineProperty(Object.prototype, "then", { get() { ${CALL}; return undefined; } }); return "planted";`,
  },
  { name: "process.getBuiltinModule when called", escapes: false, code: `${WRITE}; return "tried";` },
  {
    name: "globalThis.process environment when called",
    escapes: false,
    code: `return Object.keys(globalThis.process?.env ?? {}).join(",") || "none";`,
  },
  { name: "request when called", escapes: false, code: `return String((await ${CALL}).status);` },
  { name: "script tag in a string", escapes: false, code: "return '</script><script>fetch(1)</script><!-- -->';" },
];
