/**
 * Tool-call arguments: parsing the wire's JSON text and validating against a tool's whole JSON Schema.
 * Validation goes through zod's `fromJSONSchema` (types, required, enums, nested objects and arrays,
 * additionalProperties, bounds) in jitless mode, because Workers forbid eval/new Function.
 * Messages name each failing field by path so the model can repair its call.
 */
import * as z from "zod";
import { isPlainObject } from "./plain-object.ts";
import type { AgentTool, JsonSchema, ToolArguments } from "./types.ts";

z.config({ jitless: true });

export type ParsedArguments = { ok: true; args: ToolArguments } | { ok: false; error: string };

/** Accepts an object or JSON text of an object (empty text means no arguments). */
export function parseToolArguments(raw: unknown, toolName: string): ParsedArguments {
  if (raw === undefined || raw === null) return { ok: true, args: {} };
  if (typeof raw === "string") {
    if (raw.trim() === "") return { ok: true, args: {} };
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { ok: false, error: `Invalid JSON in arguments for tool "${toolName}": ${reason}` };
    }
    raw = parsed;
  }
  if (!isPlainObject(raw)) {
    return { ok: false, error: `Arguments for tool "${toolName}" must be a JSON object` };
  }
  return { ok: true, args: raw };
}

const compiled = new WeakMap<JsonSchema, z.ZodType>();

/** Converts (once per schema object) a tool's JSON Schema into a zod validator; throws on an unusable schema. */
export function compileInputSchema(schema: JsonSchema): z.ZodType {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    compiled.set(schema, validator);
  }
  return validator;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** Default validation: the whole schema. Returns undefined when valid, else one line per problem. */
export function validateAgainstSchema(args: ToolArguments, schema: JsonSchema, toolName: string): string | undefined {
  let validator: z.ZodType;
  try {
    validator = compileInputSchema(schema);
  } catch (err) {
    return `Tool "${toolName}" has an invalid input schema: ${err instanceof Error ? err.message : String(err)}`;
  }
  const parsed = validator.safeParse(args);
  if (parsed.success) return undefined;
  const problems = parsed.error.issues.map((issue) => {
    const where = formatPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => (where ? `${where}.${k}` : k)).join(", ");
      return `- ${keys}: not allowed by the schema`;
    }
    if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) {
      return `- ${where}: required field is missing`;
    }
    return `- ${where || "(arguments)"}: ${issue.message}`;
  });
  return `Invalid arguments for tool "${toolName}":\n${problems.join("\n")}`;
}

/** A tool's own validateRequiredArgs replaces the default schema validation (docs/architecture.md "Agent semantics"). */
export function validateToolArguments(tool: AgentTool, args: ToolArguments): string | undefined {
  if (tool.validateRequiredArgs) return tool.validateRequiredArgs(args) ?? undefined;
  return validateAgainstSchema(args, tool.inputSchema, tool.name);
}
