/**
 * The AgentSession's SQLite schema. Every table is append-mostly and keyed so that a step touches a
 * constant number of rows: messages and events are appended, queues pop from the front by id.
 */
export const SCHEMA_STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, json TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, json TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS queue (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     kind TEXT NOT NULL,
     message_id TEXT NOT NULL,
     json TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS queue_kind ON queue (kind, id)`,
  `CREATE TABLE IF NOT EXISTS tool_call_journal (
     run_id TEXT NOT NULL,
     tool_call_id TEXT NOT NULL,
     state TEXT NOT NULL,
     json TEXT,
     PRIMARY KEY (run_id, tool_call_id)
   )`,
  `CREATE TABLE IF NOT EXISTS approvals (
     tool_call_id TEXT PRIMARY KEY,
     run_id TEXT NOT NULL,
     tool_name TEXT NOT NULL,
     status TEXT NOT NULL,
     reason TEXT,
     expires_at INTEGER NOT NULL
   )`,
] as const;

/** The journal's earlier table, keyed by tool-call id alone; its rows move to `tool_call_journal` once. */
const OLD_JOURNAL = "tool_journal";

export function applySchema(sql: SqlStorage): void {
  // One call for the whole schema: each storage call costs the same whatever it does.
  sql.exec(SCHEMA_STATEMENTS.join(";\n"));
  if (sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`, OLD_JOURNAL).toArray().length > 0) {
    sql.exec(
      `INSERT OR IGNORE INTO tool_call_journal (run_id, tool_call_id, state, json) SELECT run_id, tool_call_id, state, json FROM ${OLD_JOURNAL}`,
    );
    sql.exec(`DROP TABLE ${OLD_JOURNAL}`);
  }
}
