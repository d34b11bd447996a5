/**
 * The routes the Worker's Hono routers register, read from src/http's source (Node only): `METHOD /path`
 * with Hono's `:param` names, a path given as a constant looked up where src/ exports it. Read from the
 * source rather than the app, so the docs and probe checks run in plain Node without loading the Worker.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./temp-project.ts";

const SRC = path.join(REPO_ROOT, "src");

const sourcesUnder = (folder: string): string[] =>
  readdirSync(path.join(SRC, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => readFileSync(path.join(SRC, folder, name), "utf8"));

export function servedRoutes(): string[] {
  const constants = new Map(
    sourcesUnder("").flatMap((text) => [...text.matchAll(/export const ([A-Z_]+) = "(\/[^"]*)"/g)].map((m) => [m[1]!, m[2]!] as const)),
  );
  return sourcesUnder("http").flatMap((text) =>
    [...text.matchAll(/\b\w+Routes\.(get|post|put|patch|delete)\(\s*(?:"([^"]+)"|([A-Z_]+)\b)/g)].map(
      (m) => `${m[1]!.toUpperCase()} ${m[2] ?? constants.get(m[3]!) ?? m[3]}`,
    ),
  );
}
