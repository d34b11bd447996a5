/**
 * The redeploy's wall against code that escapes its function: the rendered tools/<name>.ts is parsed with
 * the TypeScript compiler (a real parser, the language the file is written in) and compared with the
 * template rendered from the same spec with empty bodies. Its top-level statements must be exactly the
 * template's, and each function holding written code must contain exactly that code, so no body can
 * close its function and run at load. Bodies may not use `import()` or `import.meta`. Nothing is executed.
 */
import ts from "typescript";
import { renderToolSource, type CodeField, type RenderMeta } from "../../src/tools/written/render.ts";
import type { WrittenToolSpec } from "../../src/tools/written/spec.ts";

/** The template's function that holds each code field. */
const BODY_FUNCTIONS: Readonly<Record<string, CodeField>> = {
  executeTool: "executeCode",
  validateArgs: "validateCode",
  prepareArgs: "prepareCode",
};
const EMPTY_BODY = "";

const normalize = (code: string) => code.split(/\r\n|\r|\n/).join("\n");

function parse(text: string): { file: ts.SourceFile; diagnostics: readonly ts.Diagnostic[] } {
  const fileName = "tool.ts";
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const host: ts.CompilerHost = {
    getSourceFile: (name) => (name === fileName ? file : undefined),
    getDefaultLibFileName: () => "lib.d.ts",
    writeFile: () => {},
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (name) => name === fileName,
    readFile: () => undefined,
  };
  const program = ts.createProgram({ rootNames: [fileName], options: { noLib: true, noResolve: true, noEmit: true }, host });
  return { file, diagnostics: program.getSyntacticDiagnostics(file) };
}

function describeDiagnostic(d: ts.Diagnostic): string {
  const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
  const at = where ? `line ${where.line + 1}, column ${where.character + 1}: ` : "";
  return `${at}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
}

const bodyFunctionName = (statement: ts.Statement): string | undefined =>
  ts.isFunctionDeclaration(statement) && statement.name && statement.name.text in BODY_FUNCTIONS ? statement.name.text : undefined;

/** `import(...)` and `import.meta` inside a body: a written tool has nothing to import. */
function findImports(node: ts.Node, file: ts.SourceFile, field: CodeField, found: string[]): void {
  const isImportCall = ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword;
  const isImportMeta = ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword;
  if (isImportCall || isImportMeta) {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push(`${field}: ${isImportCall ? "import()" : "import.meta"} is not allowed in a written tool (file line ${line + 1})`);
  }
  ts.forEachChild(node, (child) => findImports(child, file, field, found));
}

/**
 * Problems with `source` as the rendering of `spec` (empty when it is exactly the template with each
 * body inside its function). `meta` is the index row's version, author and time, as rendered.
 */
export function checkRenderedStructure(source: string, spec: WrittenToolSpec, meta: RenderMeta): string[] {
  const actual = parse(source);
  if (actual.diagnostics.length > 0) return actual.diagnostics.slice(0, 5).map((d) => `syntax error at ${describeDiagnostic(d)}`);
  const empty: WrittenToolSpec = { ...spec, executeCode: EMPTY_BODY };
  if (spec.validateCode !== undefined) empty.validateCode = EMPTY_BODY;
  if (spec.prepareCode !== undefined) empty.prepareCode = EMPTY_BODY;
  const template = parse(renderToolSource(empty, meta).code).file;

  const got = actual.file.statements;
  const want = template.statements;
  if (got.length !== want.length) {
    return [
      `the file has ${got.length} top-level statements where its template has ${want.length}: code escaped the function it was placed in`,
    ];
  }
  const problems: string[] = [];
  for (const [i, expected] of want.entries()) {
    const statement = got[i]!;
    const { line } = actual.file.getLineAndCharacterOfPosition(statement.getStart(actual.file));
    const where = `top-level statement ${i + 1} (line ${line + 1})`;
    const fn = bodyFunctionName(expected);
    if (!fn) {
      if (statement.getText(actual.file) !== expected.getText(template)) problems.push(`${where} differs from the template`);
      continue;
    }
    const field = BODY_FUNCTIONS[fn]!;
    const expectedDecl = expected as ts.FunctionDeclaration;
    if (!ts.isFunctionDeclaration(statement) || statement.name?.text !== fn || !statement.body || !expectedDecl.body) {
      problems.push(`${where} should be function ${fn}`);
      continue;
    }
    const head = (decl: ts.FunctionDeclaration, file: ts.SourceFile) => file.text.slice(decl.getStart(file), decl.body!.getStart(file));
    if (head(statement, actual.file) !== head(expectedDecl, template))
      problems.push(`${where}: the signature of ${fn} differs from the template`);
    const inner = actual.file.text.slice(statement.body.getStart(actual.file) + 1, statement.body.end - 1);
    if (inner !== `\n${normalize(spec[field] ?? "")}\n`)
      problems.push(`${field} does not stay inside function ${fn}: the parser closes the function elsewhere`);
    findImports(statement.body, actual.file, field, problems);
  }
  return problems;
}
