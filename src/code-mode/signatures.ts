/**
 * TypeScript signatures of tools, from their input JSON Schemas, for runCode's description: what a model
 * writing a program needs to call `tools.x(args)` right. Covers the schema keywords tools use (type,
 * properties, required, enum, const, items, anyOf/oneOf, additionalProperties); anything else is
 * `unknown`. Bounded: nesting depth, and each tool's description is its first line, cut.
 */
import type { AgentTool } from "../core/index.ts";

const MAX_DEPTH = 4;
const MAX_SUMMARY_CHARS = 200;

type Schema = Record<string, unknown>;

export function typeOfSchema(schema: unknown, depth = 0): string {
  if (!schema || typeof schema !== "object" || depth > MAX_DEPTH) return "unknown";
  const s = schema as Schema;
  if ("const" in s) return JSON.stringify(s.const) ?? "unknown";
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ") || "never";
  const union = (Array.isArray(s.anyOf) && s.anyOf) || (Array.isArray(s.oneOf) && s.oneOf);
  if (union) return union.map((item) => typeOfSchema(item, depth + 1)).join(" | ") || "unknown";
  if (Array.isArray(s.type)) return s.type.map((t) => typeOfSchema({ ...s, type: t }, depth)).join(" | ");
  switch (s.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${wrap(typeOfSchema(s.items, depth + 1))}[]`;
    case "object":
      return objectType(s, depth);
    default:
      return s.properties ? objectType(s, depth) : "unknown";
  }
}

const wrap = (type: string) => (/[ |]/.test(type) ? `(${type})` : type);

function objectType(s: Schema, depth: number): string {
  const properties = s.properties && typeof s.properties === "object" ? (s.properties as Schema) : {};
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : []);
  const fields = Object.entries(properties).map(([name, schema]) => {
    const key = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
    return `${key}${required.has(name) ? "" : "?"}: ${typeOfSchema(schema, depth + 1)}`;
  });
  if (fields.length === 0) return s.additionalProperties === false ? "{}" : "Record<string, unknown>";
  return `{ ${fields.join("; ")} }`;
}

/** One line per tool: its summary as a comment, then `name(args: {...}): Promise<string>;`. */
export function toolSignatures(tools: readonly AgentTool[]): string {
  return tools
    .map((tool) => {
      const summary = (tool.description.split("\n")[0] ?? "").slice(0, MAX_SUMMARY_CHARS).replaceAll("*/", "* /");
      const args = typeOfSchema(tool.inputSchema);
      const required = (tool.inputSchema as Schema).required;
      const optional = Array.isArray(required) && required.length > 0 ? "" : "?";
      return `  /** ${summary} */\n  ${tool.name}(args${optional}: ${args}): Promise<string>;`;
    })
    .join("\n");
}
