/**
 * Rows written together. A run produces a step's rows (its messages, events and tool-journal states) a few
 * at a time; they are collected here and written at the moments that need them stored: before a tool that
 * must not run twice executes, at a run's end, before any read of those tables, and otherwise in the next
 * macrotask (after the step's LLM request has left, so the request does not wait for their commit). Each
 * Durable Object storage call costs ~50 µs of CPU whatever it writes (README "Where a step's time goes"),
 * so a flush is one statement: rows of one table as a multi-row INSERT, rows of several tables as one
 * multi-row INSERT into a view whose INSTEAD OF triggers (one per table, session-schema.ts) move each row
 * to its table, in the order the rows came.
 * Invariants: rows are written in the order they were added; what must follow a write (publishing an
 * event) runs only after it; a flush takes everything queued before writing, so none is written twice.
 */

/** Where a buffered row goes: the table, its columns, and an optional conflict clause (an upsert). */
export type BufferedTable = { name: string; columns: readonly string[]; onConflict?: string };

/** Durable Object SQLite accepts at most 100 bound values per statement. */
const MAX_BOUND_VALUES = 100;

/** The view a flush inserts rows of several tables into: `target` names the table, c1… hold its columns. */
export const ROUTING_VIEW = "buffered_rows";
const ROUTED_COLUMNS = ["c1", "c2", "c3", "c4"] as const;

/**
 * The view and its triggers, one per table, as the CREATE statements SQLite keeps in sqlite_master (so a
 * stored definition can be compared with the current one). A row whose target has no trigger would vanish,
 * so a buffer routes only the tables it was given, and they are the ones these statements cover.
 */
export function routingSchema(tables: readonly BufferedTable[]): { view: string; triggers: Map<string, string> } {
  const view = `CREATE VIEW ${ROUTING_VIEW} (target, ${ROUTED_COLUMNS.join(", ")}) AS SELECT ${["NULL", ...ROUTED_COLUMNS.map(() => "NULL")].join(", ")} WHERE 0`;
  const triggers = new Map<string, string>();
  for (const table of tables) {
    if (table.columns.length > ROUTED_COLUMNS.length) throw new Error(`${table.name} has more columns than ${ROUTING_VIEW} routes`);
    const values = table.columns.map((_, i) => `NEW.${ROUTED_COLUMNS[i]}`).join(", ");
    const name = `${ROUTING_VIEW}_to_${table.name}`;
    triggers.set(
      name,
      `CREATE TRIGGER ${name} INSTEAD OF INSERT ON ${ROUTING_VIEW} WHEN NEW.target = '${table.name}' BEGIN ` +
        `INSERT INTO ${table.name} (${table.columns.join(", ")}) VALUES (${values})${table.onConflict ? ` ${table.onConflict}` : ""}; END`,
    );
  }
  return { view, triggers };
}

type Queued = { table: BufferedTable; row: SqlStorageValue[] };

export class WriteBuffer {
  /** Rows in the order they were added (all are written in one synchronous block, so one transaction). */
  private queued: Queued[] = [];
  private after: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly routed: ReadonlySet<BufferedTable>;

  /** `routed`: the tables the schema's routing view has a trigger for (session-schema.ts ROUTED_TABLES). */
  constructor(
    private readonly sql: SqlStorage,
    routed: readonly BufferedTable[] = [],
  ) {
    this.routed = new Set(routed);
  }

  /** Queues a row; `afterWrite` runs once it is written (e.g. publishing the event it holds). */
  add(table: BufferedTable, row: SqlStorageValue[], afterWrite?: () => void): void {
    this.queued.push({ table, row });
    if (afterWrite) this.after.push(afterWrite);
    // Nothing waits longer than the current macrotask: a run that goes quiet (a slow hook, an approval)
    // still gets its events stored and published.
    this.timer ??= setTimeout(() => this.flushLater(), 0);
  }

  /** Drops a row still waiting (the same array `add` got), e.g. one another queued row makes redundant; false once written. */
  cancel(table: BufferedTable, row: SqlStorageValue[]): boolean {
    const at = this.queued.findIndex((q) => q.row === row && q.table === table);
    if (at < 0) return false;
    this.queued.splice(at, 1);
    return true;
  }

  get isEmpty(): boolean {
    return this.queued.length === 0;
  }

  /** Writes everything queued, in one statement where the bound-value limit allows, then runs the afterWrite work. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const queued = this.queued;
    const after = this.after;
    this.queued = [];
    this.after = [];
    if (queued.length > 0) this.write(queued);
    for (const run of after) run();
  }

  private flushLater(): void {
    this.timer = undefined;
    try {
      this.flush();
    } catch (err) {
      // No caller to hand the fault to; rows are bounded and JSON-safe, so this means storage itself failed.
      console.error(JSON.stringify({ event: "storageWriteFailed", message: err instanceof Error ? err.message : String(err) }));
    }
  }

  private write(queued: Queued[]): void {
    const first = queued[0]!.table;
    if (queued.every((q) => q.table === first)) return this.writeChunks(queued, (chunk) => insertSql(first, chunk.length));
    if (queued.every((q) => this.routed.has(q.table))) return this.writeChunks(queued, routedInsertSql);
    // A table without a route: one statement per table, each in its rows' order.
    const byTable = new Map<BufferedTable, Queued[]>();
    for (const q of queued) {
      const rows = byTable.get(q.table);
      if (rows) rows.push(q);
      else byTable.set(q.table, [q]);
    }
    for (const [table, rows] of byTable) this.writeChunks(rows, (chunk) => insertSql(table, chunk.length));
  }

  /** Consecutive runs of rows, each within the bound-value limit, one statement each. */
  private writeChunks(queued: Queued[], sqlFor: (chunk: Queued[]) => string): void {
    for (let start = 0; start < queued.length; ) {
      let end = start;
      let bound = 0;
      while (end < queued.length && (end === start || bound + queued[end]!.row.length <= MAX_BOUND_VALUES)) bound += queued[end++]!.row.length;
      const chunk = queued.slice(start, end);
      this.sql.exec(sqlFor(chunk), ...chunk.flatMap((q) => q.row));
      start = end;
    }
  }
}

const placeholders = new Map<number, string>();

function rowPlaceholders(count: number): string {
  let row = placeholders.get(count);
  if (row === undefined) {
    row = `(${Array.from({ length: count }, () => "?").join(", ")})`;
    placeholders.set(count, row);
  }
  return row;
}

function insertSql(table: BufferedTable, count: number): string {
  const row = rowPlaceholders(table.columns.length);
  const values = count === 1 ? row : Array.from({ length: count }, () => row).join(", ");
  return `INSERT INTO ${table.name} (${table.columns.join(", ")}) VALUES ${values}${table.onConflict ? ` ${table.onConflict}` : ""}`;
}

/** A routed row binds only its table's columns; the target and the unused columns are literals. */
const routedRows = new Map<BufferedTable, string>();

function routedInsertSql(chunk: Queued[]): string {
  const rows = chunk.map(({ table }) => {
    let row = routedRows.get(table);
    if (row === undefined) {
      const unused = ROUTED_COLUMNS.length - table.columns.length;
      row = `('${table.name}', ${[...table.columns.map(() => "?"), ...Array.from({ length: unused }, () => "NULL")].join(", ")})`;
      routedRows.set(table, row);
    }
    return row;
  });
  return `INSERT INTO ${ROUTING_VIEW} (target, ${ROUTED_COLUMNS.join(", ")}) VALUES ${rows.join(", ")}`;
}
