import type { WriteToolInput } from "../../../src/tools/written/spec.ts";

/** A writeTool input that passes every check, with `overrides` for the case a test makes. */
export const writeToolInput = (overrides: Partial<WriteToolInput> = {}): WriteToolInput => ({
  name: "addNumbers",
  label: "Add Numbers",
  description: "Adds a and b.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  executeCode: "return String(args.a + args.b);",
  ...overrides,
});
