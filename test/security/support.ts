/**
 * Helpers for the black-box security suite: raw HTTP requests to a `wrangler dev` (node:http, so a test
 * can forge the Host header, which fetch refuses to set), and the SQLite files of its persist dir.
 */
import { readdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";

export type RawResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** One request with exactly these headers (Host included); the body read whole. */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path: `${url.pathname}${url.search}`, headers, setHost: !("host" in headers) },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.setTimeout(15_000, () => req.destroy(new Error(`${method} ${path}: no answer within 15 s`)));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Every *.sqlite file under `dir` (Durable Object storage under `--persist-to`), relative paths. */
export function sqliteFiles(dir: string, prefix = ""): string[] {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(join(dir, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const rel = join(prefix, e.name);
    if (e.isDirectory()) return sqliteFiles(dir, rel);
    return e.name.endsWith(".sqlite") ? [rel] : [];
  });
}

export const errorOf = (res: RawResponse): { code: string; message: string } =>
  (JSON.parse(res.body) as { error: { code: string; message: string } }).error;
