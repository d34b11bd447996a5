/**
 * The offline demo model's "understanding": which of the offered tools a user message asks for, and their
 * arguments read from the message through each tool's JSON Schema (place phrases, IANA time zones, enum
 * words, counts and "<number> <property>" phrases, explicit `key=value` pairs). Deterministic and pure; only tools present in the request are picked,
 * and a property is filled only when the message supplies a value (nothing is invented).
 */
import { type ChatTool, isPlainObject } from "../core/index.ts";

export type PlannedToolCall = { name: string; arguments: Record<string, unknown> };

/** Natural-language cues for the bundled tools; every other tool is picked by naming it. */
const KEYWORD_CUES: ReadonlyArray<{ tool: string; pattern: RegExp }> = [
  { tool: "getTime", pattern: /\b(?:time|clock)\b/i },
  { tool: "getWeather", pattern: /\b(?:weather|temperature|forecast)\b/i },
  { tool: "rollDice", pattern: /\b(?:roll|dice|die)\b/i },
  { tool: "listTools", pattern: /\b(?:what|which|list|show)(?:\s+\w+){0,2}?\s+tools\b|\bavailable tools\b/i },
];

const PLACE_PROPERTIES = new Set(["city", "location", "place"]);
const TIMEZONE_PROPERTIES = new Set(["timezone", "time_zone", "tz"]);
// "Area/City" or "Area/Region/City", plus the zone names people type without a slash.
const TIMEZONE_PATTERN = /\b(?:[A-Z][A-Za-z]+(?:\/[A-Z][A-Za-z0-9_+-]+)+|UTC|GMT)\b/g;
const PAIR_PATTERN = /\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|:)\s*(?:"([^"]*)"|'([^']*)'|([^\s,;]+))/g;
// Words that follow "in/for/at" without naming a place.
const NOT_A_PLACE = new Set([
  "the",
  "a",
  "an",
  "me",
  "my",
  "us",
  "you",
  "it",
  "this",
  "that",
  "there",
  "here",
  "now",
  "today",
  "tonight",
  "tomorrow",
  "yesterday",
  "morning",
  "evening",
  "afternoon",
  "night",
  "general",
  "detail",
  "details",
  "short",
  "total",
  "all",
  "use",
  "using",
  "example",
  "instance",
  "least",
  "most",
  "once",
  "first",
  "last",
  "case",
  "order",
]);
// Words that end a lower-case place phrase ("in new york and ...").
const PHRASE_STOP = new Set([
  "and",
  "or",
  "but",
  "please",
  "then",
  "with",
  "using",
  "now",
  "today",
  "tomorrow",
  "right",
  "in",
  "for",
  "at",
  "on",
  "is",
  "are",
  "what",
  "how",
]);
const MAX_PLACE_WORDS = 4;
// Number properties that say "how many": filled from the first number no other property claimed.
const COUNT_PROPERTIES = new Set(["n", "count", "number", "num", "times", "quantity", "amount", "dice"]);
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
const NUMBER = `\\d+(?:\\.\\d+)?|${Object.keys(NUMBER_WORDS).join("|")}`;

type Mention = { tool: ChatTool; position: number };

/** The tool calls a message asks for, in the order the message mentions them. */
export function planToolCalls(message: string, tools: readonly ChatTool[]): PlannedToolCall[] {
  const mentions = findMentions(message, tools);
  return mentions.map((mention, i) => {
    const end = mentions[i + 1]?.position ?? message.length;
    return { name: mention.tool.function.name, arguments: fillArguments(message, mention.position, end, mention.tool.function.parameters) };
  });
}

function findMentions(message: string, tools: readonly ChatTool[]): Mention[] {
  const mentions: Mention[] = [];
  // A quoted value (`task="what time is it"`) is one argument: the words inside it mention no tool.
  const quoted = [...message.matchAll(PAIR_PATTERN)]
    .filter((m) => m[2] !== undefined || m[3] !== undefined)
    .map((m) => [m.index, m.index + m[0].length] as const);
  const firstOutsideQuotes = (pattern: RegExp): number | undefined => {
    for (const hit of message.matchAll(new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`))) {
      if (!quoted.some(([from, to]) => hit.index > from && hit.index < to)) return hit.index;
    }
    return undefined;
  };
  for (const tool of tools) {
    const name = tool.function.name;
    const positions: number[] = [];
    const named = firstOutsideQuotes(new RegExp(`\\b${escapeRegExp(name)}\\b`, "i"));
    if (named !== undefined) positions.push(named);
    for (const cue of KEYWORD_CUES) {
      const hit = cue.tool === name ? firstOutsideQuotes(cue.pattern) : undefined;
      if (hit !== undefined) positions.push(hit);
    }
    if (positions.length > 0) mentions.push({ tool, position: Math.min(...positions) });
  }
  return mentions.sort((a, b) => a.position - b.position || a.tool.function.name.localeCompare(b.tool.function.name));
}

/**
 * Reads a tool's arguments from its own part of the message (from its mention to the next tool's);
 * when that part yields nothing or misses a required value, it reads on to the end, then the whole message.
 */
function fillArguments(message: string, start: number, end: number, schema: Record<string, unknown>): Record<string, unknown> {
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const args: Record<string, unknown> = {};
  for (const text of [message.slice(start, end), message.slice(start), message]) {
    for (const [key, value] of Object.entries(readArguments(text, schema))) if (!(key in args)) args[key] = value;
    if (Object.keys(args).length > 0 && required.every((r) => r in args)) break;
  }
  return args;
}

function readArguments(text: string, schema: Record<string, unknown>): Record<string, unknown> {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const args: Record<string, unknown> = {};
  const pairs = readPairs(text);
  const enumWords = new Set<string>();
  for (const property of Object.values(properties))
    if (isPlainObject(property) && Array.isArray(property.enum)) for (const v of property.enum) enumWords.add(String(v).toLowerCase());

  const numbers = readNumbers(text.replace(PAIR_PATTERN, " ; "), properties, pairs);
  for (const [key, raw] of Object.entries(properties)) {
    const property = isPlainObject(raw) ? raw : {};
    const explicit = pairs.get(key) ?? pairs.get(key.toLowerCase());
    if (explicit !== undefined) {
      args[key] = coerce(explicit, property);
      continue;
    }
    if (numbers.has(key)) args[key] = numbers.get(key);
    const lower = key.toLowerCase();
    if (property.type !== undefined && property.type !== "string") continue;
    if (Array.isArray(property.enum)) {
      const word = property.enum.find((v) => typeof v === "string" && new RegExp(`\\b${escapeRegExp(v)}\\b`, "i").test(text));
      if (word !== undefined) args[key] = word;
    } else if (TIMEZONE_PROPERTIES.has(lower)) {
      const zone = text.match(TIMEZONE_PATTERN)?.[0];
      if (zone) args[key] = zone;
    } else if (PLACE_PROPERTIES.has(lower)) {
      const place = findPlace(text, enumWords, Object.keys(properties));
      if (place) args[key] = place;
    }
  }
  return args;
}

const toNumber = (word: string) => NUMBER_WORDS[word.toLowerCase()] ?? Number(word);
const isNumeric = (property: unknown) => isPlainObject(property) && (property.type === "number" || property.type === "integer");

/**
 * Numbers for number properties without a key=value pair: "20 sides" or "20-sided" for `sides`, "3d20"
 * for a count and `sides`, then each count property ("roll 3 dice": `n`) takes the first number left.
 */
function readNumbers(text: string, properties: Record<string, unknown>, pairs: ReadonlyMap<string, string>): Map<string, number> {
  const found = new Map<string, number>();
  const keys = Object.keys(properties).filter((k) => isNumeric(properties[k]) && !pairs.has(k) && !pairs.has(k.toLowerCase()));
  const claimed = new Set<number>(); // positions of numbers already used
  const counts = keys.filter((k) => COUNT_PROPERTIES.has(k.toLowerCase()));
  const dice = /\b(\d+)d(\d+)\b/i.exec(text);
  if (dice && keys.includes("sides")) {
    found.set("sides", Number(dice[2]));
    if (counts[0]) found.set(counts[0], Number(dice[1]));
    return found;
  }
  for (const key of keys.filter((k) => !COUNT_PROPERTIES.has(k.toLowerCase()))) {
    const noun = escapeRegExp(key.replace(/s$/i, ""));
    const hit = new RegExp(`\\b(${NUMBER})[\\s-]+${noun}(?:s|d|ed)?\\b`, "i").exec(text);
    if (hit) {
      found.set(key, toNumber(hit[1]!));
      claimed.add(hit.index);
    }
  }
  const free = [...text.matchAll(new RegExp(`\\b(${NUMBER})\\b`, "gi"))].filter((m) => !claimed.has(m.index));
  for (const [i, key] of counts.entries()) if (free[i]) found.set(key, toNumber(free[i]![1]!));
  return found;
}

/** `key=value` and `key: value` pairs; quoted values may hold spaces. The first mention of a key wins. */
function readPairs(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const m of text.matchAll(PAIR_PATTERN)) {
    const key = m[1]!;
    const value = m[2] ?? m[3] ?? m[4] ?? "";
    if (!pairs.has(key)) pairs.set(key, value);
    if (!pairs.has(key.toLowerCase())) pairs.set(key.toLowerCase(), value);
  }
  return pairs;
}

function coerce(value: string, property: Record<string, unknown>): unknown {
  if ((property.type === "number" || property.type === "integer") && value.trim() !== "" && Number.isFinite(Number(value)))
    return Number(value);
  if (property.type === "boolean" && /^(?:true|false)$/i.test(value)) return value.toLowerCase() === "true";
  return value;
}

/** The place phrase after "in", "for" or "at": capitalized words, or up to a few words before a stop word. */
function findPlace(text: string, excluded: ReadonlySet<string>, propertyKeys: readonly string[]): string | undefined {
  // Time zones and the tool's own key=value pairs are not places ("time in Europe/Berlin" has no city).
  const keys = new Set(propertyKeys.map((k) => k.toLowerCase()));
  const cleaned = text
    .replace(TIMEZONE_PATTERN, " ; ")
    .replace(PAIR_PATTERN, (pair, key: string) => (keys.has(key.toLowerCase()) ? " ; " : pair));
  // The phrase is captured inside a lookahead so "for tomorrow in Berlin" still finds "in Berlin".
  for (const m of cleaned.matchAll(/\b(?:in|for|at)\s+(?=([^?!.,;:()"]+))/gi)) {
    const words = m[1]!.trim().split(/\s+/);
    const first = words[0]?.toLowerCase() ?? "";
    if (!first || NOT_A_PLACE.has(first) || excluded.has(first) || !/^\p{L}/u.test(first)) continue;
    const capitalized = /^\p{Lu}/u.test(words[0]!);
    const phrase: string[] = [];
    for (const word of words.slice(0, MAX_PLACE_WORDS)) {
      const lower = word.toLowerCase();
      if (phrase.length > 0 && (PHRASE_STOP.has(lower) || excluded.has(lower))) break;
      // "New York and weather": a capitalized phrase ends at its first lower-case word.
      if (phrase.length > 0 && capitalized && !/^\p{Lu}/u.test(word)) break;
      phrase.push(word);
    }
    return phrase.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
  }
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
