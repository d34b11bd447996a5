/**
 * Storage written per step, read from the Durable Object's SQLite file in wrangler's persist dir (with
 * node:sqlite, read-only, while wrangler runs): rows kept and the bytes of their values, over every table
 * the session has (whatever the schema), and the file's growth. One session runs `steps 1` and then
 * `steps 21`; the difference of the two runs' growth, ÷ 20, is one step without the run's fixed part.
 * Rows updated in place or deleted within the run are not in these figures. The file is found by the
 * session's id in its `meta` row: with SQLite's WAL a file's mtime moves only at a checkpoint, so "the file
 * written last" was often another object's (the traces store) and every figure read 0. A step that stores
 * nothing is impossible (it stores at least its messages and events), so a figure ≤ 0 fails the bench.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { AgentClient } from "../../src/client/index.ts";
import { createBenchSession, runTurn } from "./driver.ts";

type Footprint = { rows: number; bytes: number; fileBytes: number };
export type StorageResult = { method: string; perStep: Footprint };

const EXTRA_STEPS = 20;

export async function measureStorage(client: AgentClient, persistTo: string): Promise<StorageResult> {
  const session = await createBenchSession(client, ["benchEcho"], "storage");
  await runTurn(session, "seed 10");
  const file = sessionFile(persistTo, session.handle.id);
  const before = readFootprint(file);
  await runTurn(session, "steps 1");
  const afterOne = readFootprint(file);
  await runTurn(session, `steps ${EXTRA_STEPS + 1}`);
  const afterMany = readFootprint(file);
  const perStep = (key: keyof Footprint) => (afterMany[key] - afterOne[key] - (afterOne[key] - before[key])) / EXTRA_STEPS;
  if (!(perStep("rows") > 0 && perStep("bytes") > 0))
    throw new Error(
      `storage per step read ${perStep("rows")} rows, ${perStep("bytes")} B from ${file}: a step stores its messages and events`,
    );
  return {
    method:
      "rows kept and their value bytes over all tables, read from the Durable Object's SQLite file (node:sqlite); (steps 21 − steps 1) ÷ 20",
    perStep: { rows: perStep("rows"), bytes: perStep("bytes"), fileBytes: perStep("fileBytes") },
  };
}

/** The Durable Object SQLite file whose `meta` holds session `id`'s settings. */
function sessionFile(persistTo: string, id: string): string {
  for (const file of sqliteFiles(persistTo)) {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).get();
      const row = hasMeta ? (db.prepare(`SELECT value FROM meta WHERE key = 'session'`).get() as { value: string } | undefined) : undefined;
      if (row && (JSON.parse(row.value) as { id?: string }).id === id) return file;
    } finally {
      db.close();
    }
  }
  throw new Error(`No SQLite file under ${persistTo} holds session ${id}`);
}

function sqliteFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sqliteFiles(path);
    return entry.name.endsWith(".sqlite") ? [path] : [];
  });
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function readFootprint(file: string): Footprint {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    let rows = 0;
    let bytes = 0;
    // The platform's own tables (_cf_*) and SQLite's are not the session's storage.
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'`)
      .all() as { name: string }[];
    for (const { name } of tables) {
      const columns = (db.prepare(`PRAGMA table_info(${quote(name)})`).all() as { name: string }[]).map(
        (c) => `IFNULL(LENGTH(${quote(c.name)}), 0)`,
      );
      const row = db
        .prepare(`SELECT COUNT(*) AS rows, IFNULL(SUM(${columns.join(" + ") || "0"}), 0) AS bytes FROM ${quote(name)}`)
        .get() as { rows: number; bytes: number };
      rows += Number(row.rows);
      bytes += Number(row.bytes);
    }
    const size = (path: string) => {
      try {
        return statSync(path).size;
      } catch {
        return 0;
      }
    };
    return { rows, bytes, fileBytes: size(file) + size(`${file}-wal`) };
  } finally {
    db.close();
  }
}
