/**
 * The AgentSession's SQLite schema. Every table is append-mostly and keyed so that a step touches a
 * constant number of rows: messages and events are appended, queues pop from the front by id. The write
 * buffer writes a flush's rows of several tables in one statement through a view (write-buffer.ts); its
 * triggers are derived from the tables' buffered shapes. They and the schema's other triggers are compared
 * with the stored ones on every wake and replaced when they differ (an older deployment's, or none yet).
 */
import { EVENTS } from "./event-log.ts";
import { MESSAGES } from "./message-store.ts";
import { JOURNAL } from "./tool-journal.ts";
import { ROUTING_VIEW, routingSchema, type BufferedTable } from "./write-buffer.ts";

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

/**
 * Triggers kept current like the routing view's: compared with the stored definition on every wake and
 * replaced when it differs, so a changed body reaches sessions created by an older deployment (a
 * `CREATE TRIGGER IF NOT EXISTS` would keep their old one). Written as SQLite keeps them in sqlite_master.
 */
const KEPT_CURRENT_TRIGGERS: ReadonlyMap<string, string> = new Map([
  // Only a run in progress is ever resumed, so a run's journal rows are dead once its runEnd is stored: they
  // go in the same statement (and commit) as that row, with no storage call of their own. The journal then
  // holds at most one run's calls instead of every call the session ever made.
  [
    "journal_cleared_at_run_end",
    `CREATE TRIGGER journal_cleared_at_run_end AFTER INSERT ON events WHEN NEW.type = 'runEnd' BEGIN DELETE FROM tool_call_journal; END`,
  ],
]);

/** The tables the write buffer may write together through the routing view. */
export const ROUTED_TABLES: readonly BufferedTable[] = [EVENTS, MESSAGES, JOURNAL];
const ROUTING = routingSchema(ROUTED_TABLES);

/** The journal's earlier table, keyed by tool-call id alone; its rows move to `tool_call_journal` once. */
const OLD_JOURNAL = "tool_journal";

export function applySchema(sql: SqlStorage): void {
  // One call for the whole schema: each storage call costs the same whatever it does.
  sql.exec(SCHEMA_STATEMENTS.join(";\n"));
  // One read tells what to migrate and whether the routing view and the other triggers are current.
  const keptCurrent = [...KEPT_CURRENT_TRIGGERS.keys()];
  const stored = new Map(
    sql
      .exec<{ name: string; sql: string }>(
        `SELECT name, sql FROM sqlite_master WHERE name = ? OR tbl_name = ? OR name IN (${keptCurrent.map(() => "?").join(", ")})`,
        OLD_JOURNAL,
        ROUTING_VIEW,
        ...keptCurrent,
      )
      .toArray()
      .map((row) => [row.name, row.sql]),
  );
  const stale = [...KEPT_CURRENT_TRIGGERS].filter(([name, text]) => stored.get(name) !== text);
  if (stale.length > 0) sql.exec(stale.flatMap(([name, text]) => [`DROP TRIGGER IF EXISTS ${name}`, text]).join(";\n"));
  for (const name of keptCurrent) stored.delete(name);
  if (stored.has(OLD_JOURNAL)) {
    sql.exec(
      `INSERT OR IGNORE INTO tool_call_journal (run_id, tool_call_id, state, json) SELECT run_id, tool_call_id, state, json FROM ${OLD_JOURNAL}`,
    );
    sql.exec(`DROP TABLE ${OLD_JOURNAL}`);
    stored.delete(OLD_JOURNAL);
  }
  const current =
    stored.get(ROUTING_VIEW) === ROUTING.view &&
    stored.size === ROUTING.triggers.size + 1 &&
    [...ROUTING.triggers].every(([name, text]) => stored.get(name) === text);
  // Dropping the view drops its triggers; rows are only ever in flight inside one synchronous flush, never here.
  if (!current) sql.exec([`DROP VIEW IF EXISTS ${ROUTING_VIEW}`, ROUTING.view, ...ROUTING.triggers.values()].join(";\n"));
}
