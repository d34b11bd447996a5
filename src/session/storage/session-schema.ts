/**
 * The AgentSession's SQLite schema as numbered migrations: step N brings a database at version N to N+1,
 * and the version reached is kept in meta (`schema_version`). Applied when a session is created and when
 * an object that holds one starts; an object that never held a session has no tables and gets none (a
 * request to an unknown id stores nothing). Tables are append-mostly and keyed so a step touches a
 * constant number of rows; each has one owner module that writes it.
 */
import { MCP_OAUTH_SCHEMA } from "../../mcp/oauth/oauth-store.ts";
import { WROTE_TOOLS_KEY } from "../../tools/written/session-tools.ts";

/** Ordered steps; append a new one for every schema change, never edit a released one. */
const MIGRATIONS: readonly string[] = [
  // 1: meta (session-meta.ts), messages (message-store.ts), events (event-log.ts), queue (session-queues.ts),
  //    tool_call_journal (tool-journal.ts), approvals (approval-gate.ts).
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, json TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, json TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS queue (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, message_id TEXT NOT NULL, json TEXT NOT NULL);
   CREATE INDEX IF NOT EXISTS queue_kind ON queue (kind, id);
   CREATE TABLE IF NOT EXISTS tool_call_journal (
     run_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, state TEXT NOT NULL, json TEXT,
     PRIMARY KEY (run_id, tool_call_id)
   );
   CREATE TABLE IF NOT EXISTS approvals (
     tool_call_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, tool_name TEXT NOT NULL,
     status TEXT NOT NULL, reason TEXT, expires_at INTEGER NOT NULL
   )`,
  // 2: mcp_oauth, mcp_oauth_flows (src/mcp/oauth/oauth-store.ts): OAuth credentials of MCP servers the session added.
  MCP_OAUTH_SCHEMA,
  // 3: sub_agents (sub-agent-calls.ts): the child sessions this session's sub-agent calls started.
  `CREATE TABLE IF NOT EXISTS sub_agents (
     session_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, created_at INTEGER NOT NULL
   )`,
  // 4: schedules (schedule-store.ts); the index serves "the next due time" and "what is due now".
  `CREATE TABLE IF NOT EXISTS schedules (
     id TEXT PRIMARY KEY, name TEXT, kind TEXT NOT NULL, spec TEXT NOT NULL, message TEXT NOT NULL,
     next_run_at INTEGER NOT NULL, last_run_at INTEGER, runs INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL
   );
   CREATE INDEX IF NOT EXISTS schedules_due ON schedules (next_run_at)`,
  // 5: idempotency_keys (idempotency-keys.ts): Idempotency-Key claims and their answers, kept 24 h.
  `CREATE TABLE IF NOT EXISTS idempotency_keys (
     key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, answer TEXT, bytes INTEGER NOT NULL, created_at INTEGER NOT NULL
   );
   CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at)`,
  // 6: elicitations (elicitation-gate.ts).
  `CREATE TABLE IF NOT EXISTS elicitations (
     id TEXT PRIMARY KEY, server TEXT NOT NULL, message TEXT NOT NULL, schema_json TEXT NOT NULL,
     status TEXT NOT NULL, expires_at INTEGER NOT NULL
   )`,
  // 7: approvals keyed by run and call (approval-gate.ts): a tool call id the model reuses in a later run
  //    never finds the earlier run's decision; the index serves the pending list of every alarm and snapshot.
  `CREATE TABLE approvals_by_run (
     run_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, tool_name TEXT NOT NULL,
     status TEXT NOT NULL, reason TEXT, expires_at INTEGER NOT NULL,
     PRIMARY KEY (run_id, tool_call_id)
   );
   INSERT INTO approvals_by_run SELECT run_id, tool_call_id, tool_name, status, reason, expires_at FROM approvals;
   DROP TABLE approvals;
   ALTER TABLE approvals_by_run RENAME TO approvals;
   CREATE INDEX approvals_status ON approvals (status, expires_at)`,
  // 8: a session registers drafts as it starts only once it wrote a tool (session-tools.ts). One created
  //    before that was recorded may have written some, so it is marked and keeps looking. A new session
  //    has no settings row yet when it migrates, so it is not.
  `INSERT OR IGNORE INTO meta (key, value) SELECT '${WROTE_TOOLS_KEY}', 'true' FROM meta WHERE key = 'session'`,
  // 9: fewer rows written per insert (rows written are billed, docs/benchmarks.md "What a turn costs"):
  //    messages and queue without AUTOINCREMENT, whose sqlite_sequence row made each insert write two
  //    rows (a new key is still max + 1: messages are never deleted, the queue is read in key order among
  //    the rows it holds); queue and idempotency_keys without their secondary index (they hold at most 64
  //    and 256 rows: a scan reads them for 1/1000 of an index row's write each); meta WITHOUT ROWID (its
  //    key index was a second row per insert).
  `CREATE TABLE messages_by_seq (seq INTEGER PRIMARY KEY, json TEXT NOT NULL);
   INSERT INTO messages_by_seq (seq, json) SELECT seq, json FROM messages;
   DROP TABLE messages;
   ALTER TABLE messages_by_seq RENAME TO messages;
   CREATE TABLE queue_by_id (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, message_id TEXT NOT NULL, json TEXT NOT NULL);
   INSERT INTO queue_by_id (id, kind, message_id, json) SELECT id, kind, message_id, json FROM queue;
   DROP TABLE queue;
   ALTER TABLE queue_by_id RENAME TO queue;
   CREATE TABLE meta_by_key (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
   INSERT INTO meta_by_key (key, value) SELECT key, value FROM meta;
   DROP TABLE meta;
   ALTER TABLE meta_by_key RENAME TO meta;
   DROP INDEX IF EXISTS idempotency_keys_created`,
  // 10: the events one commit stores share a row (event-log.ts): `seq` is the first event's, `last_seq`
  //     the last's, `types` their types between spaces, `json` their texts joined by newlines.
  `CREATE TABLE event_rows (seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, types TEXT NOT NULL, json TEXT NOT NULL);
   INSERT INTO event_rows (seq, last_seq, types, json) SELECT seq, seq, ' ' || type || ' ', json FROM events;
   DROP TABLE events;
   ALTER TABLE event_rows RENAME TO events`,
  // 11: idempotency_keys WITHOUT ROWID: its key index was a second row per insert (idempotency-keys.ts
  //     orders its eviction by created_at, then the key just written first, then key).
  `CREATE TABLE idempotency_keys_by_key (
     key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, answer TEXT, bytes INTEGER NOT NULL, created_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO idempotency_keys_by_key SELECT key, fingerprint, answer, bytes, created_at FROM idempotency_keys;
   DROP TABLE idempotency_keys;
   ALTER TABLE idempotency_keys_by_key RENAME TO idempotency_keys`,
  // 12: the run record's four meta rows (`run`, `usage`, `delegatedTokens`, `lastActiveAt`) become its one
  //     `record` row (run-record.ts), written at a run's start and end instead of four rows a turn
  //     (json_patch onto '{}' leaves out the rows a session did not have).
  `INSERT INTO meta (key, value)
     SELECT 'record', json_patch('{}', json_object(
       'run', json((SELECT value FROM meta WHERE key = 'run')),
       'usage', json((SELECT value FROM meta WHERE key = 'usage')),
       'delegatedTokens', json((SELECT value FROM meta WHERE key = 'delegatedTokens')),
       'lastActiveAt', json((SELECT value FROM meta WHERE key = 'lastActiveAt'))))
     WHERE EXISTS (SELECT 1 FROM meta WHERE key IN ('run', 'usage', 'delegatedTokens', 'lastActiveAt'));
   DELETE FROM meta WHERE key IN ('run', 'usage', 'delegatedTokens', 'lastActiveAt')`,
  // 13: no output queue rows (run-record.ts): an unread answer is its runEnd event, whose seq the `record`
  //     row keeps in `answers`, and `responsesEvicted` moves into that row too. Each queued answer's runEnd
  //     is found by its run id (the row's `message_id`) among the rows holding a runEnd, at its place in
  //     the row (the spaces before it in `types`); one whose runEnd the log trimmed counts as evicted.
  `WITH legacy AS (
     SELECT q.id, (SELECT MAX(e.seq + length(substr(e.types, 1, instr(e.types, ' runEnd ')))
                         - length(replace(substr(e.types, 1, instr(e.types, ' runEnd ')), ' ', '')) - 1)
                   FROM events e
                   WHERE e.types LIKE '% runEnd %' AND instr(e.json, '"runId":"' || q.message_id || '"') > 0) AS seq
     FROM queue q WHERE q.kind = 'output'
   )
   INSERT INTO meta (key, value)
     SELECT 'record', json_patch(COALESCE((SELECT value FROM meta WHERE key = 'record'), '{}'), json_object(
       'answers', json((SELECT json_group_array(seq) FROM (SELECT seq FROM legacy WHERE seq IS NOT NULL ORDER BY seq))),
       'responsesEvicted', COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'responsesEvicted'), 0)
         + (SELECT COUNT(*) FROM legacy WHERE seq IS NULL)))
     WHERE EXISTS (SELECT 1 FROM legacy) OR EXISTS (SELECT 1 FROM meta WHERE key = 'responsesEvicted')
     ON CONFLICT (key) DO UPDATE SET value = excluded.value;
   DELETE FROM queue WHERE kind = 'output';
   DELETE FROM meta WHERE key = 'responsesEvicted'`,
];

const VERSION_KEY = "schema_version";

/** Whether this object's storage holds a schema at all (read from sqlite_master: no table is touched). */
export function hasSchema(sql: SqlStorage): boolean {
  return sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).toArray().length > 0;
}

/** Brings the schema to the newest version (creating it on a new session's first call). */
export function migrate(sql: SqlStorage): void {
  const stored = hasSchema(sql)
    ? sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = ?`, VERSION_KEY).toArray()[0]?.value
    : undefined;
  const version = stored === undefined ? 0 : Number(stored);
  if (version >= MIGRATIONS.length) return;
  for (let step = version; step < MIGRATIONS.length; step++) sql.exec(MIGRATIONS[step]!);
  sql.exec(
    `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    VERSION_KEY,
    String(MIGRATIONS.length),
  );
}
