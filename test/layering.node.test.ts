/**
 * The layering the README's Layout section draws, checked on the import lines of every source file:
 * the core imports no platform, Hono or openai; the session never imports the HTTP layer; the wire
 * protocol imports only the core and the host features' vocabulary (what they merge into the core's
 * unions); the client SDK imports only the wire, the core and itself.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../src");

/** Every import of a folder's files: a package name as written, a relative one resolved against src/. */
async function importsOf(folder: string): Promise<{ file: string; target: string }[]> {
  const out: { file: string; target: string }[] = [];
  for (const name of await readdir(path.join(SRC, folder), { recursive: true })) {
    if (!name.endsWith(".ts")) continue;
    const text = await readFile(path.join(SRC, folder, name), "utf8");
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)) {
      const spec = match[1]!;
      const target = spec.startsWith(".") ? path.posix.join(folder, path.posix.dirname(name), spec) : spec;
      out.push({ file: `${folder}/${name}`, target });
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

describe("layering", () => {
  it("keeps the core free of Cloudflare, Hono, openai and the layers above it", async () => {
    const platform = (t: string) => t.startsWith("cloudflare:") || /^(hono|openai)(\/|$)/.test(t);
    expect(await offending("core", (t) => platform(t) || (isRelative(t) && !t.startsWith("core/") && t !== "core"))).toEqual([]);
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
