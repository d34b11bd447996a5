/**
 * The offline demo model in code mode: when the session offers runCode and a message asks for two or more
 * tool calls ("time in Tokyo and Paris", "weather in Paris and the time in Rome"), it answers with one
 * runCode program that makes them all at once instead of one call per tool, and reads the program's
 * `{returned, logs}` back into its summary. Pure; used by offline-model.ts.
 */
import type { ChatTool } from "../core/index.ts";
import { type PlannedToolCall, planToolCalls } from "./offline-intent.ts";

export const RUN_CODE_TOOL = "runCode";
const PLACE_KEYS = ["city", "location", "place"];
// More places after the first: "Tokyo and Paris", "Tokyo, Paris & Rome".
const MORE_PLACES = /^(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)(\p{Lu}[\p{L}'-]*(?:\s\p{Lu}[\p{L}'-]*)*)/u;

/** The runCode program for `message`, or undefined when runCode is not offered or one call is enough. */
export function planProgram(message: string, tools: readonly ChatTool[]): string | undefined {
  if (!tools.some((t) => t.function.name === RUN_CODE_TOOL)) return undefined;
  const others = tools.filter((t) => t.function.name !== RUN_CODE_TOOL);
  const calls = planToolCalls(message, others).flatMap((call) => withMorePlaces(call, message));
  if (calls.length < 2) return undefined;
  const labels = calls.map((call) => label(call));
  return [
    "// One program instead of one model turn per call: the calls run together.",
    "const results = await Promise.all([",
    ...calls.map((call) => `  tools.${call.name}(${JSON.stringify(call.arguments)}),`),
    "]);",
    `const labels = ${JSON.stringify(labels)};`,
    "return Object.fromEntries(labels.map((label, i) => [label, results[i]]));",
  ].join("\n");
}

/** A call for a place, repeated for each further place the message lists after it. */
function withMorePlaces(call: PlannedToolCall, message: string): PlannedToolCall[] {
  const key = PLACE_KEYS.find((k) => typeof call.arguments[k] === "string");
  if (!key) return [call];
  const first = call.arguments[key] as string;
  const at = message.toLowerCase().indexOf(first.toLowerCase());
  if (at < 0) return [call];
  const calls = [call];
  let rest = message.slice(at + first.length);
  for (let m = MORE_PLACES.exec(rest); m; m = MORE_PLACES.exec(rest)) {
    calls.push({ name: call.name, arguments: { ...call.arguments, [key]: m[1]! } });
    rest = rest.slice(m[0].length);
  }
  return calls;
}

function label(call: PlannedToolCall): string {
  const values = Object.values(call.arguments).map((v) => String(v));
  return values.length > 0 ? `${call.name} ${values.join(" ")}` : call.name;
}

/** The summary lines of a runCode result: one per returned entry, or undefined when it is not one. */
export function programResultLines(content: string): string[] | undefined {
  try {
    const parsed = JSON.parse(content) as { returned?: unknown; logs?: unknown };
    const { returned } = parsed;
    if (!returned || typeof returned !== "object" || Array.isArray(returned)) return undefined;
    return Object.entries(returned).map(([key, value]) => `- ${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  } catch {
    return undefined;
  }
}
