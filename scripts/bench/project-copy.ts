/**
 * A throwaway copy of the project for the benchmark: src/, tools/, guardrails/, scripts/, public/ and the
 * config files copied into a temp dir, node_modules symlinked, and (on request) the bench tools or
 * guardrails added to the copy only. The real tools/ is never touched, so bench tools never ship.
 * `remove()` deletes the copy (wrangler's state included when it lives inside).
 */
import {
  accessSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const COPIED = ["src", "tools", "guardrails", "scripts", "public", "wrangler.toml", "package.json", "tsconfig.json"];

export type ProjectCopy = {
  dir: string;
  /** Adds scripts/bench/tools/*.ts to the copy's tools/ (wrangler's build step regenerates the registry). */
  addBenchTools(): void;
  /** Adds scripts/bench/guardrails/*.ts (one trivial input and one output check); returns what takes them out. */
  addBenchGuardrails(): () => void;
  remove(): void;
};

/**
 * Where the bench keeps copies and `wrangler dev` state: /dev/shm (memory) when there is one. Local
 * Durable Object storage fsyncs its SQLite file at every commit, and a step commits once, so on disk the
 * step would measure the machine's disk (~0.3–0.5 ms per fsync on this VM's, more or less on others)
 * rather than the runtime. Every Workers runtime of the comparison gets the same root (docs/benchmarks.md).
 */
export function benchScratchRoot(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

/** `root`: the checkout to copy, by default this one (bench:ab copies a second checkout beside it). */
export function createProjectCopy(root = REPO_ROOT): ProjectCopy {
  const dir = mkdtempSync(join(benchScratchRoot(), "edge-agent-bench-"));
  for (const name of COPIED) if (existsSync(join(root, name))) cpSync(join(root, name), join(dir, name), { recursive: true });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  /** Copies scripts/bench/<kind>/*.ts into the copy's <kind>/; returns the files it wrote. */
  const add = (kind: "tools" | "guardrails") => {
    mkdirSync(join(dir, kind), { recursive: true });
    return readdirSync(join(REPO_ROOT, "scripts", "bench", kind))
      .filter((f) => f.endsWith(".ts"))
      .map((file) => {
        // The sources import from three levels up; in the copy's tools/ or guardrails/ the project root is one level up.
        const source = readFileSync(join(REPO_ROOT, "scripts", "bench", kind, file), "utf8").replaceAll(`"../../../src/`, `"../src/`);
        writeFileSync(join(dir, kind, file), source);
        return join(dir, kind, file);
      });
  };
  return {
    dir,
    addBenchTools: () => void add("tools"),
    addBenchGuardrails: () => {
      const files = add("guardrails");
      return () => files.forEach((f) => rmSync(f, { force: true }));
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
