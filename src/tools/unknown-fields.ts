/**
 * Names the fields of a tool definition that this project does not know, with the field meant where the
 * habit of another SDK or a typo is recognisable ("unknown field `parameters`, did you mean `schema`?").
 * Called by defineTool (src/tools/define-tool.ts) and by the build's tool check for plain-object tools
 * (scripts/tool-check/check-entry.ts). Pure: reads the keys, never the values.
 */
import type { AgentTool } from "../core/index.ts";

/** What other SDKs call a field, by the form it is written in. */
const HABITS: Readonly<Record<"defineTool" | "plain", Readonly<Record<string, string>>>> = {
  defineTool: { parameters: "schema", inputSchema: "schema", input_schema: "schema", args: "schema", argsSchema: "schema" },
  plain: { parameters: "inputSchema", schema: "inputSchema", input_schema: "inputSchema", args: "inputSchema", argsSchema: "inputSchema" },
};
const COMMON_HABITS: Readonly<Record<string, string>> = {
  handler: "execute",
  run: "execute",
  invoke: "execute",
  call: "execute",
  func: "execute",
  fn: "execute",
  title: "label",
  displayName: "label",
  requireApproval: "requiresApproval",
  needsApproval: "requiresApproval",
  parallel: "parallelToolExecute",
  timeout: "timeoutMs",
};

/** Edit distance, to suggest the field a typo meant; small inputs only (field names). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

function suggestion(key: string, known: readonly string[], form: "defineTool" | "plain"): string | undefined {
  const habit = HABITS[form][key] ?? COMMON_HABITS[key];
  if (habit) return habit;
  const lower = key.toLowerCase();
  const close = known.map((k) => ({ k, d: distance(lower, k.toLowerCase()) })).sort((x, y) => x.d - y.d)[0];
  return close && close.d <= 2 ? close.k : undefined;
}

/** One message per key of `definition` outside `known`, in the definition's key order. */
export function describeUnknownFields(definition: object, known: readonly string[], form: "defineTool" | "plain"): string[] {
  return Object.keys(definition)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const meant = suggestion(key, known, form);
      return `unknown field \`${key}\`${meant ? `, did you mean \`${meant}\`?` : ` (known: ${known.join(", ")})`}`;
    });
}

/** `true` when the list names every key of T, else `never` (so assigning `true` fails tsc). */
export type ListsEvery<T, L extends readonly PropertyKey[]> = Exclude<keyof T, L[number]> extends never ? true : never;

/** The fields of a plain-object tool: every key of AgentTool (the check below fails tsc if one is missing). */
export const PLAIN_TOOL_FIELDS = [
  "name",
  "label",
  "description",
  "inputSchema",
  "execute",
  "prepareArguments",
  "validateRequiredArgs",
  "parallelToolExecute",
  "idempotent",
  "requiresApproval",
  "timeoutMs",
  "env",
  "capabilities",
  "annotations",
  "outputSchema",
] as const satisfies readonly (keyof AgentTool)[];
const _plainToolFieldsComplete: ListsEvery<AgentTool, typeof PLAIN_TOOL_FIELDS> = true;
