import { describe, expect, it } from "vitest";
import { checkWriteToolInput } from "../../../src/tools/written/checks.ts";
import type { WriteToolInput } from "../../../src/tools/written/spec.ts";
import { writeToolInput } from "./support.ts";

const problemsOf = (overrides: Partial<WriteToolInput>): string[] => {
  const result = checkWriteToolInput(writeToolInput(overrides), { bundled: ["listTools"], written: [] });
  return result.ok ? [] : result.problems;
};

describe("writeTool refuses characters that hide code from the reviewer", () => {
  it("refuses a terminal escape in a comment, naming the field, line, column and code point", () => {
    const problems = problemsOf({ executeCode: "// fine\n// \u001b[2A\u001b[2K hidden\nreturn 1;" });
    expect(problems).toEqual([expect.stringMatching(/^executeCode line 2, column 4: character U\+001B is not allowed/)]);
  });

  it("refuses C1 controls (CSI U+009B) and DEL in any code field", () => {
    expect(problemsOf({ validateCode: "return undefined; // \u009b2J" })[0]).toMatch(/^validateCode line 1, column 22: character U\+009B/);
    expect(problemsOf({ prepareCode: "return args;\u007f" })[0]).toMatch(/^prepareCode .* U\+007F/);
  });

  it("refuses bidi overrides and isolates (Trojan Source)", () => {
    for (const mark of ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]) {
      expect(problemsOf({ executeCode: `const ok = "x"; /*${mark} } if (admin) { ${mark}*/ return ok;` }).join()).toMatch(/is not allowed/);
    }
  });

  it("refuses them in the label, description and any string of the schema", () => {
    expect(problemsOf({ label: "Add\u001b[0m" })[0]).toMatch(/^label line 1, column 4: character U\+001B/);
    expect(problemsOf({ description: "Adds\u202e" })[0]).toMatch(/^description .* U\+202E/);
    const schema = { type: "object", properties: { a: { type: "number", description: "x\u009by" } } };
    expect(problemsOf({ inputSchema: schema })).toEqual([expect.stringMatching(/^inputSchema contains character U\+009B/)]);
  });

  it("keeps tabs, newlines, carriage returns and ordinary non-ASCII text", () => {
    expect(problemsOf({ executeCode: "\tconst s = 'héllo — 日本';\r\n\treturn s;", description: "Adds a and b, עברית too." })).toEqual([]);
  });
});
