/**
 * Storage written per step, read from the Durable Object's SQLite file in wrangler's persist dir (with
 * node:sqlite, read-only, while wrangler runs). Per table: rows and bytes of stored text. One session runs
 * `steps 1` and then `steps 21`; the difference of the two runs' growth, ÷ 20, is the cost of one step
 * without the run's fixed part. Counts rows kept, so in-place updates (the tool journal's state changes)
 * and transient rows (queue entries popped in the same run) are not in these figures.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { AgentClient } from "../../src/client/index.ts";
import { createBenchSession, runTurn } from "./driver.ts";

type TableSizes = Record<string, { rows: number; bytes: number }>;
type Footprint = { tables: TableSizes; fileBytes: number };

export type StorageResult = {
  method: string;
  perStep: { rows: number; bytes: number; fileBytes: number; byTable: TableSizes };
};

/** Text columns whose lengths make up a row's stored payload, per table. */
const PAYLOAD: Record<string, string> = {
  messages: "LENGTH(json)",
  events: "LENGTH(json) + LENGTH(type)",
  tool_call_journal: "LENGTH(tool_call_id) + LENGTH(run_id) + LENGTH(state) + IFNULL(LENGTH(json), 0)",
  queue: "LENGTH(kind) + LENGTH(message_id) + LENGTH(json)",
  meta: "LENGTH(key) + LENGTH(value)",
};

const EXTRA_STEPS = 20;

export async function measureStorage(client: AgentClient, persistTo: string): Promise<StorageResult> {
  const session = await createBenchSession(client, ["benchEcho"], "storage");
  await runTurn(session, "seed 10");
  const file = findSessionDatabase(persistTo, session.handle.id);
  const before = readFootprint(file);
  await runTurn(session, "steps 1");
  const afterOne = readFootprint(file);
  await runTurn(session, `steps ${EXTRA_STEPS + 1}`);
  const afterMany = readFootprint(file);

  const byTable: TableSizes = {};
  let rows = 0;
  let bytes = 0;
  for (const table of Object.keys(PAYLOAD)) {
    const growth = (a: Footprint, b: Footprint, key: "rows" | "bytes") => b.tables[table]![key] - a.tables[table]![key];
    const perStep = (key: "rows" | "bytes") => (growth(afterOne, afterMany, key) - growth(before, afterOne, key)) / EXTRA_STEPS;
    byTable[table] = { rows: perStep("rows"), bytes: perStep("bytes") };
    rows += byTable[table]!.rows;
    bytes += byTable[table]!.bytes;
  }
  const fileBytes = (afterMany.fileBytes - afterOne.fileBytes - (afterOne.fileBytes - before.fileBytes)) / EXTRA_STEPS;
  return {
    method: "rows kept and their text bytes per table, read from the Durable Object's SQLite file (node:sqlite); (steps 21 − steps 1) ÷ 20",
    perStep: { rows, bytes, fileBytes, byTable },
  };
}

function sqliteFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sqliteFiles(path));
    else if (entry.name.endsWith(".sqlite")) out.push(path);
  }
  return out;
}

/** The file whose `meta` row "session" names this session id. */
function findSessionDatabase(persistTo: string, sessionId: string): string {
  for (const file of sqliteFiles(persistTo)) {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const row = db.prepare(`SELECT value FROM meta WHERE key = 'session'`).get() as { value?: string } | undefined;
      if (row?.value && (JSON.parse(row.value) as { id?: string }).id === sessionId) return file;
    } catch {
      // Not a session database (or not initialised yet): keep looking.
    } finally {
      db.close();
    }
  }
  throw new Error(`No SQLite file for session ${sessionId} under ${persistTo}`);
}

function readFootprint(file: string): Footprint {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const tables: TableSizes = {};
    for (const [table, payload] of Object.entries(PAYLOAD)) {
      const row = db.prepare(`SELECT COUNT(*) AS rows, IFNULL(SUM(${payload}), 0) AS bytes FROM ${table}`).get() as { rows: number; bytes: number };
      tables[table] = { rows: Number(row.rows), bytes: Number(row.bytes) };
    }
    const size = (path: string) => {
      try {
        return statSync(path).size;
      } catch {
        return 0;
      }
    };
    return { tables, fileBytes: size(file) + size(`${file}-wal`) };
  } finally {
    db.close();
  }
}
