/**
 * The tool file contract's checks, in one place for every way a tool arrives: the input schema (registry
 * generator and writeTool) and a loaded tool module (registry generator and redeploy, which run it inside
 * workerd next to the module, never in Node). Pure and dependency-light, so any host can bundle it.
 */
import { isPlainObject } from "./plain-object.ts";
import { compileInputSchema } from "./tool-arguments.ts";
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

const TOOL_TEXT_FIELDS = ["name", "label", "description"] as const;
const OPTIONAL_FUNCTIONS = ["prepareArguments", "validateRequiredArgs"] as const;
const OPTIONAL_FLAGS = ["parallelToolExecute", "idempotent", "requiresApproval"] as const;

/**
 * Problems with a loaded tool module against the tool file contract (getTool() exported, returning a tool
 * named like its file with a usable schema), one line each. Runs wherever the module was loaded: the
 * registry generator and the redeploy run it inside workerd, next to the module; it never calls execute.
 */
export function checkToolModule(mod: unknown, expectedName: string): string[] {
  const getTool = typeof mod === "object" && mod !== null ? (mod as { getTool?: unknown }).getTool : undefined;
  if (typeof getTool !== "function") return ["does not export a getTool() function"];
  let tool: unknown;
  try {
    tool = getTool();
  } catch (err) {
    return [`getTool() threw: ${err instanceof Error ? err.message : String(err)}`];
  }
  if (tool && typeof (tool as { then?: unknown }).then === "function") return ["getTool() must return the tool itself, not a promise"];
  if (!isPlainObject(tool)) return ["getTool() did not return a tool object"];
  const problems: string[] = [];
  for (const key of TOOL_TEXT_FIELDS) {
    const value = tool[key];
    if (typeof value !== "string" || value.trim() === "") problems.push(`tool ${key} must be a non-empty string`);
  }
  if (typeof tool.execute !== "function") problems.push("tool execute must be a function");
  for (const key of OPTIONAL_FUNCTIONS) {
    if (tool[key] !== undefined && typeof tool[key] !== "function") problems.push(`tool ${key} must be a function when present`);
  }
  for (const key of OPTIONAL_FLAGS) {
    if (tool[key] !== undefined && typeof tool[key] !== "boolean") problems.push(`tool ${key} must be a boolean when present`);
  }
  const timeoutMs = tool.timeoutMs;
  if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && timeoutMs > 0))
    problems.push("tool timeoutMs must be a positive number when present");
  for (const key of ["env", "capabilities"] as const) {
    const list = tool[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((v) => typeof v === "string")))
      problems.push(`tool ${key} must be an array of names when present`);
  }
  if (tool.annotations !== undefined && !isPlainObject(tool.annotations)) problems.push("tool annotations must be an object when present");
  if (tool.outputSchema !== undefined && !(isPlainObject(tool.outputSchema) && tool.outputSchema.type === "object")) {
    problems.push('tool outputSchema must be a JSON Schema object with type "object" when present');
  }
  if (typeof tool.name === "string" && tool.name !== expectedName)
    problems.push(`tool name "${tool.name}" does not match the file name "${expectedName}"`);
  problems.push(...checkInputSchema(tool.inputSchema));
  return problems;
}
