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
  `CREATE TABLE IF NOT EXISTS tool_journal (
     tool_call_id TEXT PRIMARY KEY,
     run_id TEXT NOT NULL,
     state TEXT NOT NULL,
     json TEXT
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

export function applySchema(sql: SqlStorage): void {
  for (const statement of SCHEMA_STATEMENTS) sql.exec(statement);
}
