/**
 * The layering docs/architecture.md "Layout" draws, checked on the import lines of every source file:
 * the core imports no platform, Hono or openai and names no host feature; the session never imports the
 * HTTP layer; the wire protocol imports only the core and the host features' vocabulary; the client SDK
 * imports only the wire, the core and itself. Host features merge their events and capabilities into the
 * core's unions from vocabulary modules, and every program that reads those unions loads them all.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../src");

/** Every .ts file under a folder of src/ ("" for all of src/), as a path relative to src/, with its text. */
async function sourcesOf(folder: string): Promise<{ file: string; text: string }[]> {
  const out: { file: string; text: string }[] = [];
  for (const name of await readdir(path.join(SRC, folder), { recursive: true })) {
    if (!name.endsWith(".ts")) continue;
    out.push({ file: path.posix.join(folder, name), text: await readFile(path.join(SRC, folder, name), "utf8") });
  }
  return out;
}

/** A module specifier as written in `file`: a package name as is, a relative one resolved against src/. */
const resolve = (file: string, spec: string) => (spec.startsWith(".") ? path.posix.join(path.posix.dirname(file), spec) : spec);

/** Every import of a folder's files: a package name as written, a relative one resolved against src/. */
async function importsOf(folder: string): Promise<{ file: string; target: string }[]> {
  const out: { file: string; target: string }[] = [];
  for (const { file, text } of await sourcesOf(folder)) {
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)) {
      out.push({ file, target: resolve(file, match[1]!) });
    }
  }
  return out;
}

async function offending(folder: string, forbidden: (target: string) => boolean): Promise<string[]> {
  return (await importsOf(folder)).filter(({ target }) => forbidden(target)).map(({ file, target }) => `${file} → ${target}`);
}

const isRelative = (target: string) => /^[a-z-]+\//.test(target) && !target.includes(":");

/** Where host features declare what they merge into the core's unions (see src/host-vocabulary.ts). */
const HOST_VOCABULARY = "host-vocabulary.ts";
const isVocabulary = (target: string) => target === HOST_VOCABULARY || /^[a-z-/]+-vocabulary\.ts$/.test(target);

/** The files under src/ that `from` loads, itself included, following relative imports. */
async function loadedBy(from: string): Promise<Set<string>> {
  const graph = new Map<string, string[]>();
  for (const { file, target } of await importsOf("")) graph.set(file, [...(graph.get(file) ?? []), target]);
  const seen = new Set<string>();
  const pending = [from];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...(graph.get(file) ?? []));
  }
  return seen;
}

describe("layering", () => {
  it("keeps the core free of Cloudflare, Node, Hono, openai and the layers above it", async () => {
    const platform = (t: string) => /^(cloudflare|node):/.test(t) || /^(hono|openai)(\/|$)/.test(t);
    expect(await offending("core", (t) => platform(t) || (isRelative(t) && !t.startsWith("core/") && t !== "core"))).toEqual([]);
  });

  it("keeps the host features' names out of the core, comments included (each adds its own from its own module)", async () => {
    const hostFeature = /schedul|mcp|elicit|sampling|sub-?agent/i;
    const mentions = (await sourcesOf("core")).flatMap(({ file, text }) =>
      text.split("\n").flatMap((line, i) => (hostFeature.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(mentions).toEqual([]);
  });

  it("lists every module that merges into the core's declarations in src/host-vocabulary.ts", async () => {
    const merging = (await sourcesOf(""))
      .filter(({ file, text }) =>
        [...text.matchAll(/^\s*declare\s+module\s+"([^"]+)"/gm)].some((m) => resolve(file, m[1]!).startsWith("core/")),
      )
      .map(({ file }) => file);
    const listed = (await importsOf("")).filter(({ file }) => file === HOST_VOCABULARY).map(({ target }) => target);
    expect(merging.length).toBeGreaterThan(0);
    expect(merging.filter(isVocabulary).sort()).toEqual(merging.sort());
    expect(listed.sort()).toEqual(merging.sort());
  });

  it("keeps the vocabulary modules on the core alone, so any program can load them", async () => {
    const vocabularies = (await importsOf("")).filter(({ file }) => isVocabulary(file) && file !== HOST_VOCABULARY);
    expect(vocabularies.filter(({ target }) => !target.startsWith("core/")).map(({ file, target }) => `${file} → ${target}`)).toEqual([]);
  });

  it("loads the host vocabulary wherever the unions are read: the Worker, the wire, the client SDK (and the page), the tool kit", async () => {
    const roots = ["index.ts", "wire/events.ts", "client/index.ts", "tools/define-tool.ts", "tools/tool-context.ts"];
    const missing: string[] = [];
    for (const root of roots) if (!(await loadedBy(root)).has(HOST_VOCABULARY)) missing.push(root);
    expect(missing).toEqual([]);
  });

  it("keeps the session from importing the HTTP layer", async () => {
    expect(await offending("session", (t) => t.startsWith("http/") || /^hono(\/|$)/.test(t))).toEqual([]);
  });

  it("keeps the wire protocol on the core and the host features' vocabulary", async () => {
    expect(await offending("wire", (t) => !/^(wire|core)\//.test(t) && !isVocabulary(t))).toEqual([]);
  });

  it("keeps the client SDK on the wire, the core and itself", async () => {
    expect(await offending("client", (t) => !/^(client|wire|core)\//.test(t))).toEqual([]);
  });
});
