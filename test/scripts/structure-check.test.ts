import { describe, expect, it } from "vitest";
import { checkRenderedStructure } from "../../scripts/redeploy/structure-check.ts";
import { renderToolSource } from "../../src/tools/written/render.ts";
import type { WrittenToolSpec } from "../../src/tools/written/spec.ts";

const META = { version: 2, author: { sessionId: "s_1", toolCallId: "call_1" }, writtenAt: "2026-11-30T00:00:00.000Z" };
const spec = (overrides: Partial<WrittenToolSpec> = {}): WrittenToolSpec => ({
  name: "adder",
  label: "Adder",
  description: "Adds */ a and b.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  executeCode: "const sum = args.a + args.b;\r\nreturn `sum: ${sum}`; // }",
  parallel: false,
  ...overrides,
});
const check = (s: WrittenToolSpec, source = renderToolSource(s, META).code) => checkRenderedStructure(source, s, META);

describe("the redeploy's structure check (TypeScript parser)", () => {
  it("accepts a rendered tool whose body stays inside its function", () => {
    expect(check(spec())).toEqual([]);
  });

  it("accepts a tool with prepare and validate bodies", () => {
    expect(check(spec({ prepareCode: "return { ...args };", validateCode: "if (args.a < 0) return 'negative';" }))).toEqual([]);
  });

  it("refuses a body that closes its function and runs code at load", () => {
    expect(check(spec({ executeCode: "const o = {}; o.return /1; } globalThis.x = 1; { /x/" }))).toEqual([
      "the file has 11 top-level statements where its template has 9: code escaped the function it was placed in",
    ]);
  });

  it("refuses a body that closes one function and opens another of the same shape", () => {
    const s = spec({ validateCode: "return undefined; }\nfunction validateArgs(args: Args): unknown {\nreturn undefined;" });
    expect(check(s).length).toBeGreaterThan(0);
  });

  it("refuses a file that differs from the template outside the bodies", () => {
    const s = spec();
    const source = renderToolSource(s, META).code.replace("parallelToolExecute: false", "parallelToolExecute: true");
    expect(check(s, source)).toEqual([expect.stringMatching(/^top-level statement \d+ \(line \d+\) differs from the template$/)]);
  });

  it("refuses import() and import.meta inside a body", () => {
    expect(check(spec({ executeCode: "return import('node:fs');" }))).toEqual([
      expect.stringMatching(/^executeCode: import\(\) is not allowed/),
    ]);
    expect(check(spec({ executeCode: "return import.meta.url;" }))).toEqual([
      expect.stringMatching(/^executeCode: import\.meta is not allowed/),
    ]);
  });

  it("reports a syntax error with its line", () => {
    expect(check(spec({ executeCode: "return (;" }))[0]).toMatch(/^syntax error at line \d+, column \d+: /);
  });
});
