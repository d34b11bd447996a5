import { describe, expect, it } from "vitest";
import { scanCodeBody } from "../../../src/tools/written/syntax-scan.ts";

describe("the code-body scan", () => {
  it("accepts balanced code with strings, comments, regexes and nested template literals", () => {
    const code = [
      "// a } in a comment does not count",
      "/* nor { in a block comment */",
      "const s = 'a ) b' + \"c ] d\";",
      "const t = `x ${ `inner ${ args.a }` } and ${ { k: 1 }.k } }`;",
      "const re = /[/}]+\\//g;",
      "const half = args.n / 2 / 1;",
      "if (re.test(s)) { return [t, half]; }",
      "return s;",
    ].join("\n");
    expect(scanCodeBody(code)).toBeUndefined();
  });

  it("refuses a closing brace that would end the surrounding function, naming its line and column", () => {
    expect(scanCodeBody("return 1;\n}\nexport function evil() {")).toEqual({
      line: 2,
      column: 1,
      message: 'unmatched "}": it would close the function the code is placed in',
    });
  });

  it("refuses a bracket closed by the wrong kind", () => {
    expect(scanCodeBody("const a = [1, 2);")?.message).toBe('")" does not match "[" opened at line 1, column 11');
  });

  it("refuses a bracket that is never closed", () => {
    expect(scanCodeBody("if (x) {\n  return 1;")).toMatchObject({ line: 1, column: 8, message: '"{" is never closed' });
  });

  it("refuses a string that runs to the end of its line", () => {
    expect(scanCodeBody("const s = 'abc;\nreturn s;")?.message).toBe("unterminated string literal");
  });

  it("refuses an unterminated template literal, block comment and regular expression", () => {
    expect(scanCodeBody("return `abc ${x}")?.message).toBe("unterminated template literal");
    expect(scanCodeBody("/* open")?.message).toBe("unterminated block comment");
    expect(scanCodeBody("return /abc")?.message).toBe("unterminated regular expression");
  });

  it("refuses import, static or dynamic, but allows a property called import", () => {
    expect(scanCodeBody('const m = await import("cloudflare:workers");')?.message).toMatch(/^import is not allowed/);
    expect(scanCodeBody("import x from 'y';")?.message).toMatch(/^import is not allowed/);
    expect(scanCodeBody("return args.import;")).toBeUndefined();
    expect(scanCodeBody('return "import";')).toBeUndefined();
  });

  it("refuses export inside a body", () => {
    expect(scanCodeBody("export const a = 1;")?.message).toBe("export is not allowed inside a tool body");
  });
});

describe("scanCodeBody on the bypasses of its earlier versions", () => {
  it("reads a slash after a keyword used as a property name as a division (o.return /1; } …)", () => {
    expect(scanCodeBody("const o = {}; o.return /1; } globalThis.x = 1; { /x/")).toMatchObject({
      message: expect.stringContaining('unmatched "}"'),
    });
  });

  it("ends a line comment at a carriage return or U+2028, as JavaScript does", () => {
    expect(scanCodeBody("// note\r} x(); {")).toMatchObject({ message: expect.stringContaining('unmatched "}"') });
    expect(scanCodeBody("// note\u2028} x(); {")).toMatchObject({ message: expect.stringContaining('unmatched "}"') });
  });

  it("refuses HTML-like comments, which scripts and modules read differently", () => {
    expect(scanCodeBody("<!-- } x(); {")).toMatchObject({ message: "HTML-like comments (<!-- and -->) are not allowed" });
  });
});
