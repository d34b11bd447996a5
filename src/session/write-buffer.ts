/**
 * Rows written together. A run produces a step's rows (its messages, events and tool-journal states) a few
 * at a time; they are collected here and written as one multi-row INSERT per table at the moments that need
 * them stored: before a tool that must not run twice executes, at a run's end, before any read of those
 * tables, and otherwise in the next macrotask (after the step's LLM request has left, so the request does
 * not wait for their commit). Each Durable Object storage call costs ~50 µs of CPU
 * whatever it writes (README "Where a step's time goes"), so a step's dozen single-row writes become a few.
 * Invariants: a table's rows are written in the order they were added; what must follow a write (publishing
 * an event) runs only after it; a flush takes everything queued before writing, so none is written twice.
 */

/** Where a buffered row goes: the table, its columns, and an optional conflict clause (an upsert). */
export type BufferedTable = { name: string; columns: readonly string[]; onConflict?: string };

/** Durable Object SQLite accepts at most 100 bound values per statement. */
const MAX_BOUND_VALUES = 100;

export class WriteBuffer {
  /** Rows per table, tables in the order their first row came (all are written in one synchronous block, so one transaction). */
  private pending = new Map<BufferedTable, SqlStorageValue[][]>();
  private after: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly sql: SqlStorage) {}

  /** Queues a row; `afterWrite` runs once it is written (e.g. publishing the event it holds). */
  add(table: BufferedTable, row: SqlStorageValue[], afterWrite?: () => void): void {
    const rows = this.pending.get(table);
    if (rows) rows.push(row);
    else this.pending.set(table, [row]);
    if (afterWrite) this.after.push(afterWrite);
    // Nothing waits longer than the current macrotask: a run that goes quiet (a slow hook, an approval)
    // still gets its events stored and published.
    this.timer ??= setTimeout(() => this.flushLater(), 0);
  }

  /** Drops a row still waiting (the same array `add` got), e.g. one another queued row makes redundant; false once written. */
  cancel(table: BufferedTable, row: SqlStorageValue[]): boolean {
    const rows = this.pending.get(table);
    const at = rows ? rows.indexOf(row) : -1;
    if (at < 0) return false;
    rows!.splice(at, 1);
    if (rows!.length === 0) this.pending.delete(table);
    return true;
  }

  get isEmpty(): boolean {
    return this.pending.size === 0;
  }

  /** Writes everything queued, one statement per table (chunked by the bound-value limit), then runs the afterWrite work. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const pending = this.pending;
    const after = this.after;
    this.pending = new Map();
    this.after = [];
    for (const [table, rows] of pending) this.write(table, rows);
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

  private write(table: BufferedTable, rows: SqlStorageValue[][]): void {
    const perStatement = Math.max(1, Math.floor(MAX_BOUND_VALUES / table.columns.length));
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      this.sql.exec(insertSql(table, chunk.length), ...chunk.flat());
    }
  }
}

const placeholders = new Map<number, string>();

function insertSql(table: BufferedTable, count: number): string {
  let row = placeholders.get(table.columns.length);
  if (row === undefined) {
    row = `(${table.columns.map(() => "?").join(", ")})`;
    placeholders.set(table.columns.length, row);
  }
  const values = count === 1 ? row : Array.from({ length: count }, () => row).join(", ");
  return `INSERT INTO ${table.name} (${table.columns.join(", ")}) VALUES ${values}${table.onConflict ? ` ${table.onConflict}` : ""}`;
}
