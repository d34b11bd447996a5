/**
 * The configuration files a newcomer reads and edits first: wrangler.toml and .dev.vars.example. They
 * name only npm scripts that exist, and keep the setting whose deployed value breaks `npm start`
 * (MODEL_PROVIDER="workers-ai") out of wrangler.toml, where both would share it. Read as text.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts);
const FILES = ["wrangler.toml", ".dev.vars.example"];

/** The `[vars]` table of wrangler.toml: its lines up to the next table header. */
function varsOf(toml: string): string[] {
  const lines = toml.split("\n");
  const start = lines.indexOf("[vars]");
  const end = lines.findIndex((l, i) => i > start && /^\[/.test(l));
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .filter((l) => /^\w+\s*=/.test(l))
    .map((l) => l.split("=")[0]!.trim());
}

describe("the configuration files", () => {
  it.each(FILES)("%s mentions only npm scripts that exist", (file) => {
    const mentioned = [...read(file).matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(mentioned.filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it("keep MODEL_PROVIDER out of wrangler.toml's shared vars and offer it in .dev.vars.example", () => {
    const vars = varsOf(read("wrangler.toml"));
    expect(vars).toContain("OPENAI_MODEL"); // the table was found
    expect(vars).not.toContain("MODEL_PROVIDER");
    expect(read(".dev.vars.example")).toMatch(/^MODEL_PROVIDER=$/m);
  });
});
