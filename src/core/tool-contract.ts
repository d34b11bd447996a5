/**
 * The tool file contract's checks on an input schema, in one place for every way a tool arrives: the
 * registry generator (scripts/generate-registry.mjs, run by Node with type stripping) and writeTool.
 * Pure and dependency-light so Node scripts can import it directly.
 */
import { compileInputSchema, isPlainObject } from "./tool-arguments.ts";
import type { JsonSchema } from "./types.ts";

/** Problems with a tool's inputSchema, one line each; empty when it is a usable JSON Schema object. */
export function checkInputSchema(schema: unknown): string[] {
  if (!isPlainObject(schema)) return ["inputSchema must be a JSON Schema object"];
  const problems: string[] = [];
  if (schema.type !== "object") problems.push(`inputSchema.type must be "object", got ${JSON.stringify(schema.type)}`);
  if (!isPlainObject(schema.properties)) problems.push("inputSchema.properties must be an object");
  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required) || !schema.required.every((r) => typeof r === "string")) {
      problems.push("inputSchema.required must be an array of property names");
    } else if (isPlainObject(schema.properties)) {
      for (const name of schema.required) {
        if (!Object.hasOwn(schema.properties, name)) problems.push(`inputSchema.required names "${name}", which is not in properties`);
      }
    }
  }
  if (problems.length > 0) return problems;
  try {
    // A copy: the validator cache is keyed by schema object, and a check must not leave one behind.
    compileInputSchema(structuredClone(schema) as JsonSchema);
  } catch (err) {
    problems.push(`inputSchema is not a JSON Schema the runtime can validate with: ${err instanceof Error ? err.message : String(err)}`);
  }
  return problems;
}
