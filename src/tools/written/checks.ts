/**
 * writeTool's checks, run before anything is stored: the name (an identifier, not a bundled tool's, no
 * path or prototype tricks), the schema (an object schema the core can validate with), size limits and a
 * lexical scan of each code body, and no control or bidi-override character anywhere (unsafe-characters.ts). Pure: the caller passes the names in use. Every problem is reported,
 * one line each, so the model can fix them all in one retry.
 */
import { isPlainObject } from "../../core/index.ts";
import { checkInputSchema } from "../../core/index.ts";
import { TOOL_NAME_PATTERN } from "../../core/index.ts";
import type { JsonSchema } from "../../core/index.ts";
import type { WriteToolInput, WrittenToolSpec } from "./spec.ts";
import { checkSchemaPatterns } from "./schema-patterns.ts";
import { scanCodeBody } from "./syntax-scan.ts";
import { checkCharacters, checkJsonCharacters } from "./unsafe-characters.ts";

/** Tool names become file names, KV keys and import bindings: short keeps all three readable. */
export const MAX_NAME_LENGTH = 64;
export const MAX_LABEL_LENGTH = 100;
export const MAX_DESCRIPTION_LENGTH = 2_000;
/** Bytes of the JSON Schema; it is sent to the model with every request, so it must stay small. */
export const MAX_SCHEMA_BYTES = 16 * 1024;
/** Bytes of executeCode: a tool is one focused function, and its source is reviewed by a human. */
export const MAX_EXECUTE_CODE_BYTES = 32 * 1024;
/** Bytes of validateCode and of prepareCode each. */
export const MAX_HOOK_CODE_BYTES = 8 * 1024;

const TS_SUPPRESSION = /@ts-(ignore|nocheck|expect-error)\b/;
// Windows cannot create files with these base names, whatever the extension.
const DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

export type NamesInUse = {
  /** Bundled tool names (listTools included): a written tool may never take one. */
  bundled: readonly string[];
  /** Names of written tools in the index: the same name is a new version, a case variant is refused. */
  written: readonly string[];
};

export type CheckResult = { ok: true; spec: WrittenToolSpec } | { ok: false; problems: string[] };

const byteLength = (text: string) => new TextEncoder().encode(text).length;

export function checkToolName(name: string, inUse: NamesInUse): string[] {
  if (!TOOL_NAME_PATTERN.test(name)) {
    return [`name ${JSON.stringify(name)} must be an identifier: letters, digits and underscores, not starting with a digit`];
  }
  const problems: string[] = [];
  if (name.length > MAX_NAME_LENGTH) problems.push(`name is ${name.length} characters long; the limit is ${MAX_NAME_LENGTH}`);
  if (DEVICE_NAMES.test(name)) problems.push(`name "${name}" is a reserved device name on some file systems`);
  if (name in Object.prototype) problems.push(`name "${name}" is reserved (a property of every JavaScript object)`);
  const lower = name.toLowerCase();
  const bundled = inUse.bundled.find((n) => n.toLowerCase() === lower);
  if (bundled) {
    problems.push(
      bundled === name
        ? `"${name}" is a bundled tool; bundled tools cannot be replaced, choose another name`
        : `"${name}" differs from the bundled tool "${bundled}" only in case; choose another name`,
    );
  }
  const written = inUse.written.find((n) => n.toLowerCase() === lower && n !== name);
  if (written) problems.push(`"${name}" differs from the written tool "${written}" only in case; use "${written}" to write a new version`);
  return problems;
}

function hasProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoKey);
  if (!isPlainObject(value)) return false;
  return Object.keys(value).some((key) => key === "__proto__" || hasProtoKey(value[key]));
}

/** The tool contract's schema checks (shared with the registry generator), plus writeTool's own limits. */
export function checkWrittenInputSchema(schema: unknown): string[] {
  if (!isPlainObject(schema)) return checkInputSchema(schema);
  const problems: string[] = [];
  const size = byteLength(JSON.stringify(schema));
  if (size > MAX_SCHEMA_BYTES) problems.push(`inputSchema is ${size} bytes; the limit is ${MAX_SCHEMA_BYTES}`);
  // `__proto__` in an object literal sets the prototype instead of a key: the rendered file would differ.
  if (hasProtoKey(schema)) problems.push('inputSchema must not contain a "__proto__" key');
  if (problems.length > 0) return problems;
  const contract = checkInputSchema(schema);
  return contract.length > 0 ? contract : checkSchemaPatterns(schema as JsonSchema);
}

function checkText(field: string, value: string, max: number): string[] {
  if (value.trim() === "") return [`${field} must not be empty`];
  return value.length > max ? [`${field} is ${value.length} characters long; the limit is ${max}`] : [];
}

export function checkCode(field: string, code: string | undefined, maxBytes: number, required: boolean): string[] {
  if (code === undefined || code.trim() === "") return required ? [`${field} must not be empty`] : [];
  const size = byteLength(code);
  if (size > maxBytes) return [`${field} is ${size} bytes; the limit is ${maxBytes}`];
  // The redeploy's typecheck is one of the checks a deployed tool must pass: it may not switch it off.
  if (TS_SUPPRESSION.test(code))
    return [`${field} must not contain TypeScript suppression comments (@ts-ignore, @ts-nocheck, @ts-expect-error)`];
  const problem = scanCodeBody(code);
  return problem ? [`${field} line ${problem.line}, column ${problem.column}: ${problem.message}`] : [];
}

/** Checks the model's input; on success returns the spec to render (optional code absent when blank). */
export function checkWriteToolInput(input: WriteToolInput, inUse: NamesInUse): CheckResult {
  const problems = [
    ...checkToolName(input.name, inUse),
    ...checkCharacters("label", input.label),
    ...checkCharacters("description", input.description),
    ...checkJsonCharacters("inputSchema", input.inputSchema),
    ...checkCharacters("executeCode", input.executeCode),
    ...checkCharacters("validateCode", input.validateCode),
    ...checkCharacters("prepareCode", input.prepareCode),
    ...checkText("label", input.label, MAX_LABEL_LENGTH),
    ...checkText("description", input.description, MAX_DESCRIPTION_LENGTH),
    ...checkWrittenInputSchema(input.inputSchema),
    ...checkCode("executeCode", input.executeCode, MAX_EXECUTE_CODE_BYTES, true),
    ...checkCode("validateCode", input.validateCode, MAX_HOOK_CODE_BYTES, false),
    ...checkCode("prepareCode", input.prepareCode, MAX_HOOK_CODE_BYTES, false),
  ];
  if (problems.length) return { ok: false, problems };
  const spec: WrittenToolSpec = {
    name: input.name,
    label: input.label.trim(),
    description: input.description.trim(),
    inputSchema: input.inputSchema,
    executeCode: input.executeCode,
    parallel: input.parallel === true,
  };
  if (input.validateCode?.trim()) spec.validateCode = input.validateCode;
  if (input.prepareCode?.trim()) spec.prepareCode = input.prepareCode;
  return { ok: true, spec };
}
