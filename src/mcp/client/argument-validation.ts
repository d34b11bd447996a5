/**
 * Argument validation for MCP tools, whose JSON Schemas come from other people's servers. The core's
 * zod validation is used when zod's fromJSONSchema accepts the schema; otherwise (if/then/else,
 * $dynamicRef, …) a complete draft 2020-12 validator that needs no eval (@cfworker/json-schema).
 * Called once per tool by the MCP tool adapter; returns the validateRequiredArgs to install, if any.
 */
import { Validator, type OutputUnit } from "@cfworker/json-schema";
import { compileInputSchema, type JsonSchema, type ToolArguments } from "../../core/index.ts";

/** Problems listed per call: enough for the model to repair its arguments, bounded for the context. */
const MAX_PROBLEMS = 8;

/** undefined when the core's default validation handles the schema; else a replacement validator. */
export function fallbackValidator(schema: JsonSchema, toolName: string): ((args: ToolArguments) => string | undefined) | undefined {
  try {
    compileInputSchema(schema);
    return undefined;
  } catch {
    // zod cannot express this schema: use the full draft 2020-12 validator instead.
  }
  let validator: Validator;
  try {
    validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], "2020-12", false);
  } catch (err) {
    const message = `Tool "${toolName}" has an invalid input schema: ${err instanceof Error ? err.message : String(err)}`;
    return () => message;
  }
  return (args) => {
    const result = validator.validate(args);
    if (result.valid) return undefined;
    return `Invalid arguments for tool "${toolName}":\n${describeErrors(result.errors).join("\n")}`;
  };
}

/**
 * cfworker reports every failing keyword up the tree ("properties" because "maximum" failed below);
 * the deepest locations say what to fix, so those come first and parents are dropped.
 */
function describeErrors(errors: readonly OutputUnit[]): string[] {
  const leaves = errors.filter((e) => !errors.some((other) => other !== e && other.keywordLocation.startsWith(`${e.keywordLocation}/`)));
  const lines = [...new Set(leaves.map((e) => `- ${pointerToPath(e.instanceLocation)}: ${e.error}`))];
  return lines.length > MAX_PROBLEMS ? [...lines.slice(0, MAX_PROBLEMS), `- … ${lines.length - MAX_PROBLEMS} more`] : lines;
}

/** "#/shape/0/kind" → "shape[0].kind"; the root is "(arguments)". */
function pointerToPath(pointer: string): string {
  const parts = pointer.replace(/^#\/?/, "").split("/").filter(Boolean);
  let out = "";
  for (const raw of parts) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  }
  return out || "(arguments)";
}
