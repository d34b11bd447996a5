/**
 * Regular expressions in a written tool's schema (`pattern`) are model-written: a catastrophic one
 * must cost only the draft's isolate (its CPU limit), never the session object. So the host validates
 * drafts against the schema without its patterns, and the draft checks the patterns itself
 * (PATTERN_CHECK_JS, rendered into the draft module). Patterns are allowed only where both walks reach
 * them: the root, `properties`, `items`, `prefixItems` and `allOf`; writeTool's checks refuse the rest.
 */
import { isPlainObject } from "../../core/index.ts";
import type { JsonSchema } from "../../core/index.ts";

type Node = Record<string, unknown>;

/** The schema nodes a value is checked against in every case (no branch, no reference). */
function reachable(node: Node, path: string, visit: (node: Node, path: string) => void): void {
  visit(node, path);
  if (isPlainObject(node.properties)) {
    for (const [key, child] of Object.entries(node.properties))
      if (isPlainObject(child)) reachable(child, `${path}.properties.${key}`, visit);
  }
  if (isPlainObject(node.items)) reachable(node.items, `${path}.items`, visit);
  for (const key of ["prefixItems", "allOf"] as const) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((child, i) => isPlainObject(child) && reachable(child, `${path}.${key}[${i}]`, visit));
  }
}

export const hasPatterns = (schema: JsonSchema): boolean => JSON.stringify(schema).includes('"pattern');

/** One problem per `pattern` the walks cannot reach and per `patternProperties`. */
export function checkSchemaPatterns(schema: JsonSchema): string[] {
  if (!hasPatterns(schema)) return [];
  const allowed = new Set<unknown>();
  reachable(schema as Node, "inputSchema", (node) => allowed.add(node));
  const problems: string[] = [];
  const walk = (value: unknown, path: string, isSchema: boolean) => {
    if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${path}[${i}]`, isSchema));
    if (!isPlainObject(value)) return;
    if (isSchema && "patternProperties" in value)
      problems.push(`${path}: patternProperties is not supported in written tools; use properties`);
    if (isSchema && typeof value.pattern === "string" && !allowed.has(value)) {
      problems.push(`${path}: a pattern is allowed only under properties, items, prefixItems and allOf`);
    }
    for (const [key, child] of Object.entries(value)) {
      // Inside `properties` the keys are property names, whose values are schemas again.
      const childIsSchema = key !== "properties" && key !== "enum" && key !== "const" && key !== "default" && key !== "examples";
      if (key === "properties" && isPlainObject(child))
        for (const [k, s] of Object.entries(child)) walk(s, `${path}.properties.${k}`, true);
      else walk(child, `${path}.${key}`, isSchema && childIsSchema);
    }
  };
  walk(schema, "inputSchema", true);
  return problems;
}

/** A copy of the schema without the patterns the draft checks itself, for the host's validation. */
export function withoutPatterns(schema: JsonSchema): JsonSchema {
  const copy = structuredClone(schema);
  reachable(copy as Node, "", (node) => {
    if (typeof node.pattern === "string") delete node.pattern;
  });
  return copy;
}

/** The same walk in the draft's plain JavaScript: the first value that does not match its pattern. */
export const PATTERN_CHECK_JS = [
  'const patternProblem = (schema, value, path = "") => {',
  '  if (!schema || typeof schema !== "object") return undefined;',
  '  if (typeof schema.pattern === "string" && typeof value === "string" && !new RegExp(schema.pattern, "u").test(value)) {',
  '    return `Invalid arguments: ${path || "(arguments)"} must match the pattern ${schema.pattern}`;',
  "  }",
  "  const children = [];",
  '  if (value && typeof value === "object" && !Array.isArray(value) && schema.properties && typeof schema.properties === "object") {',
  "    for (const [key, child] of Object.entries(schema.properties)) if (key in value) children.push([child, value[key], path ? `${path}.${key}` : key]);",
  "  }",
  "  if (Array.isArray(value)) {",
  "    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];",
  "    value.forEach((item, i) => {",
  "      const child = i < prefix.length ? prefix[i] : schema.items;",
  "      children.push([child, item, `${path}[${i}]`]);",
  "    });",
  "  }",
  "  if (Array.isArray(schema.allOf)) for (const child of schema.allOf) children.push([child, value, path]);",
  "  for (const [child, v, p] of children) {",
  "    const problem = patternProblem(child, v, p);",
  "    if (problem) return problem;",
  "  }",
  "  return undefined;",
  "};",
].join("\n");
