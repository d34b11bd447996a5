import { describe, expect, it } from "vitest";
import {
  checkWriteToolInput,
  MAX_EXECUTE_CODE_BYTES,
  MAX_HOOK_CODE_BYTES,
  MAX_NAME_LENGTH,
  MAX_SCHEMA_BYTES,
  type NamesInUse,
} from "../../../src/tools/written/checks.ts";
import type { WriteToolInput } from "../../../src/tools/written/spec.ts";
import { writeToolInput } from "./support.ts";

const inUse: NamesInUse = { bundled: ["getTime", "getWeather", "writeTool", "listTools"], written: ["searchWine"] };

const problemsOf = (overrides: Partial<WriteToolInput>, names: NamesInUse = inUse): string[] => {
  const result = checkWriteToolInput(writeToolInput(overrides), names);
  return result.ok ? [] : result.problems;
};

describe("writeTool's checks", () => {
  it("accept a well-formed tool and return its spec with parallel defaulting to false", () => {
    const result = checkWriteToolInput(writeToolInput({ label: "  Add Numbers  ", validateCode: "   " }), inUse);
    expect(result).toEqual({
      ok: true,
      spec: {
        name: "addNumbers",
        label: "Add Numbers",
        description: "Adds a and b.",
        inputSchema: writeToolInput().inputSchema,
        executeCode: "return String(args.a + args.b);",
        parallel: false,
      },
    });
  });

  it("refuse names that are not identifiers, which also rules out paths", () => {
    for (const name of ["../evil", "tools/x", "a.b", "1abc", "", "with space", "x\u0000"]) {
      expect(problemsOf({ name })[0]).toMatch(/must be an identifier/);
    }
  });

  it("refuse a bundled tool's name, also in another case", () => {
    expect(problemsOf({ name: "getTime" })).toEqual(['"getTime" is a bundled tool; bundled tools cannot be replaced, choose another name']);
    expect(problemsOf({ name: "listTools" })[0]).toMatch(/is a bundled tool/);
    expect(problemsOf({ name: "GETTIME" })[0]).toMatch(/differs from the bundled tool "getTime" only in case/);
  });

  it("allow a written tool's exact name (a new version) but refuse a case variant of it", () => {
    expect(problemsOf({ name: "searchWine" })).toEqual([]);
    expect(problemsOf({ name: "SearchWine" })[0]).toMatch(/differs from the written tool "searchWine" only in case/);
  });

  it("refuse names that are object prototype properties or device names, and overly long names", () => {
    expect(problemsOf({ name: "__proto__" })[0]).toMatch(/reserved/);
    expect(problemsOf({ name: "constructor" })[0]).toMatch(/reserved/);
    expect(problemsOf({ name: "NUL" })[0]).toMatch(/device name/);
    expect(problemsOf({ name: "a".repeat(MAX_NAME_LENGTH + 1) })[0]).toMatch(/the limit is 64/);
  });

  it("refuse a schema that is not an object schema", () => {
    expect(problemsOf({ inputSchema: { type: "string" } })).toEqual([
      'inputSchema.type must be "object", got "string"',
      "inputSchema.properties must be an object",
    ]);
  });

  it("refuse required names missing from properties", () => {
    expect(problemsOf({ inputSchema: { type: "object", properties: {}, required: ["a"] } })).toEqual([
      'inputSchema.required names "a", which is not in properties',
    ]);
  });

  it("refuse a schema carrying a __proto__ key", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as Record<string, unknown>;
    expect(problemsOf({ inputSchema: schema })).toEqual(['inputSchema must not contain a "__proto__" key']);
  });

  it("enforce the size limits of schema and code", () => {
    const big = { type: "object", properties: { a: { type: "string", description: "x".repeat(MAX_SCHEMA_BYTES) } } };
    expect(problemsOf({ inputSchema: big })[0]).toMatch(/^inputSchema is \d+ bytes; the limit is 16384$/);
    expect(problemsOf({ executeCode: `return ${"1".repeat(MAX_EXECUTE_CODE_BYTES)};` })[0]).toMatch(
      /^executeCode is \d+ bytes; the limit is 32768$/,
    );
    expect(problemsOf({ prepareCode: `return ${"1".repeat(MAX_HOOK_CODE_BYTES)};` })[0]).toMatch(
      /^prepareCode is \d+ bytes; the limit is 8192$/,
    );
  });

  it("report where a code body fails the scan", () => {
    expect(problemsOf({ executeCode: "return 1;\n}" })).toEqual([
      'executeCode line 2, column 1: unmatched "}": it would close the function the code is placed in',
    ]);
    expect(problemsOf({ validateCode: "if (args.a { return 'x'; }" })[0]).toMatch(/^validateCode line 1/);
  });

  it("refuse TypeScript suppression comments, which would switch off the redeploy's typecheck", () => {
    expect(problemsOf({ executeCode: "// @ts-ignore\nreturn args.a.b.c;" })[0]).toMatch(/suppression comments/);
  });

  it("report every problem at once", () => {
    expect(problemsOf({ name: "getTime", label: " ", executeCode: "" })).toHaveLength(3);
  });
});
