/**
 * What a new isolate does at start-up (every module's top level, before any request): the runtime builds no
 * zod schema and initialises none of the MCP SDK, jose nor acorn; each happens on first use
 * (src/lazy-schema.ts, the /mcp route, McpConnection). Checked on the Worker bundled with
 * scripts/build-worker.ts's options, in one file (each lazily imported part a lazy initialiser in it): the
 * static import graph from src/index.ts, and the bundle loaded in Node with zod's factories counted. The
 * tool registry is left out there: tools/ files are their authors' (ours build their schemas in getTool()).
 */
import { build, type Metafile, type Plugin } from "esbuild";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as realZod from "zod";
import { WORKER_BUNDLE_OPTIONS } from "../scripts/build-worker.ts";
import { issueSessionId } from "../src/signing/session-ids.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const ZOD_ENTRY = createRequire(path.join(ROOT, "package.json")).resolve("zod");
const CALLS = "__startupZodCalls";

/** `zod` with every lowercase function export (z.object, z.string, …) recording its name when called. */
function countingZod(): string {
  const real = JSON.stringify(ZOD_ENTRY);
  const wrapped = Object.entries(realZod)
    // z.config is set at load on purpose (jitless mode, src/core/tool-arguments.ts): it builds nothing.
    .filter(([name, value]) => typeof value === "function" && /^[a-z]/.test(name) && name !== "config")
    // `export { f as name }`: some names (catch, function, null) are not valid as a const's name.
    .map(
      ([name], i) =>
        `const f${i} = (...args) => { globalThis.${CALLS}.push("${name}"); return real["${name}"](...args); }; export { f${i} as ${name} };`,
    );
  return [`import * as real from ${real};`, `export * from ${real};`, ...wrapped].join("\n");
}

/**
 * Bare `zod` (not its subpaths, which the MCP SDK imports) goes to the counter; cloudflare:workers and,
 * when counting, the generated tool and guardrail registries to stubs.
 */
const stubs = (dir: string, withoutTools: boolean): Plugin => ({
  name: "startup-stubs",
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, () => ({ path: path.join(dir, "counting-zod.mjs") }));
    b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: path.join(dir, "workers-stub.mjs") }));
    if (withoutTools) b.onResolve({ filter: /\/registry\.generated\.ts$/ }, () => ({ path: path.join(dir, "no-tools.mjs") }));
  },
});

async function bundle(dir: string, outfile: string, withoutTools: boolean): Promise<Metafile> {
  const result = await build({
    ...WORKER_BUNDLE_OPTIONS,
    plugins: [stubs(dir, withoutTools)],
    outfile,
    metafile: true,
    logLevel: "silent",
  });
  return result.metafile;
}

let dir: string;
let metafile: Metafile;
let zodCallsAtLoad: string[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "edge-agent-startup-"));
  await writeFile(path.join(dir, "counting-zod.mjs"), countingZod());
  await writeFile(
    path.join(dir, "workers-stub.mjs"),
    "export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }\nexport class RpcTarget {}\n",
  );
  await writeFile(
    path.join(dir, "no-tools.mjs"),
    "export const toolRegistry = {};\nexport const guardrailRegistry = {};\nexport const brokenGuardrails = [];\n",
  );
  metafile = await bundle(dir, path.join(dir, "whole.mjs"), false);
  await bundle(dir, path.join(dir, "worker.mjs"), true);
  const calls: string[] = [];
  (globalThis as Record<string, unknown>)[CALLS] = calls;
  await import(pathToFileURL(path.join(dir, "worker.mjs")).href);
  zodCallsAtLoad = [...calls];
}, 60_000);

afterAll(async () => {
  delete (globalThis as Record<string, unknown>)[CALLS];
  await rm(dir, { recursive: true, force: true });
});

/** Inputs reachable from the entry through static imports only (dynamic import() edges not followed). */
function staticallyLoaded(meta: Metafile, entry: string): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const edge of meta.inputs[queue.pop()!]?.imports ?? []) {
      if (edge.kind !== "import-statement" || edge.external || seen.has(edge.path)) continue;
      seen.add(edge.path);
      queue.push(edge.path);
    }
  }
  return seen;
}

describe("start-up", () => {
  it("initialises none of the MCP SDK, which is in the bundle for the requests that use it", () => {
    const all = Object.keys(metafile.inputs).filter((p) => p.includes("@modelcontextprotocol/sdk"));
    expect(all.length).toBeGreaterThan(0);
    expect([...staticallyLoaded(metafile, "src/index.ts")].filter((p) => p.includes("@modelcontextprotocol/sdk"))).toEqual([]);
  });

  it("loads acorn (code mode's parser) only when a program first runs", () => {
    expect(Object.keys(metafile.inputs).filter((p) => p.includes("node_modules/acorn/")).length).toBeGreaterThan(0);
    expect([...staticallyLoaded(metafile, "src/index.ts")].filter((p) => p.includes("node_modules/acorn/"))).toEqual([]);
  });

  it("loads jose (sign-in tokens) only on a request that carries a token", () => {
    expect(Object.keys(metafile.inputs).filter((p) => p.includes("node_modules/jose/")).length).toBeGreaterThan(0);
    expect([...staticallyLoaded(metafile, "src/index.ts")].filter((p) => p.includes("node_modules/jose/"))).toEqual([]);
  });

  it("builds no zod schema while the runtime's modules load", () => {
    expect(zodCallsAtLoad).toEqual([]);
  });

  it("builds a route's schemas on its first request, so the count above can fail", async () => {
    const worker = (await import(pathToFileURL(path.join(dir, "worker.mjs")).href)) as {
      default: { request: (path: string, init: RequestInit, env: object) => Promise<Response> };
    };
    const calls = (globalThis as Record<string, unknown>)[CALLS] as string[];
    // No AGENT_SESSION binding: the request fails (a logged 500) after its checks, which is all this needs.
    const env = { SIGNING_SECRET: "startup-test-signing-secret-0123456789" };
    const id = await issueSessionId(env);
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await worker.default.request(`/v1/sessions/${id}/messages?limit=5`, {}, env);
    quiet.mockRestore();
    expect(calls).toContain("object"); // the page query's schema, checked once the id passed
  });
});
