/**
 * Scripts (scripts/) are build and ops code: they may import src/ and the shared harnesses in support/, never
 * test code, so deleting or reshaping test/ can never break `npm run bench`, the generator or the redeploy.
 * Reads every script's import specifiers from its source text.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SCRIPT_FILE = /\.(ts|mts|js|mjs)$/;
const IMPORT_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

function scriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return scriptFiles(path);
    return SCRIPT_FILE.test(entry.name) ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT_SPECIFIER)].map((m) => m[1]!);
}

describe("scripts", () => {
  it("import nothing from test/", () => {
    const offending = scriptFiles(join(ROOT, "scripts")).flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith("."))
        .map((spec) => relative(ROOT, resolve(dirname(file), spec)))
        .filter((target) => target === "test" || target.startsWith(`test/`))
        .map((target) => `${relative(ROOT, file)} → ${target}`),
    );
    expect(offending).toEqual([]);
  });
});
