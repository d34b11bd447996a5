/**
 * The bill's units as a Durable Object runtime incurs them, counted inside workerd for measure-cost.ts, in
 * bench builds only: this Worker's metered-entry.ts and the Agents SDK peer (bench/peers, METER=true).
 * - `meterState(ctx)`: `storage.sql.exec` keeps every cursor it returns, so rows read and written are summed
 *   from the cursors' own counters (what SQLite billing counts), every statement included; `setAlarm` calls
 *   are counted beside them (a row of the storage API's hidden table).
 * - `meterNamespace(ns)`: each RPC call or fetch on a stub is one Durable Object request, and the time with
 *   at least one in flight is the object's active wall-clock time.
 * The counters are this isolate's (module state): the bench reads and resets them between phases.
 */

export type MeterReading = {
  rowsRead: number;
  rowsWritten: number;
  statements: number;
  alarmsSet: number;
  /** Requests the entry Worker served (the meter's own aside). */
  workerRequests: number;
  doRequests: number;
  activeMs: number;
  /** Sum of `sql.databaseSize` over every metered object this isolate has seen. */
  databaseBytes: number;
  /** Rows written and read by statement text (the first 80 characters), to tell which writes a step makes. */
  bySql: Record<string, { runs: number; rowsWritten: number; rowsRead: number }>;
};

const cursors: { sql: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }[] = [];
let bySql: MeterReading["bySql"] = {};
/** Each metered object's `databaseSize` after its latest statement (read in its own request context). */
const databases = new Map<string, number>();
let folded = { rowsRead: 0, rowsWritten: 0 };
let statements = 0;
let alarmsSet = 0;
let doRequests = 0;
let workerRequests = 0;
let activeMs = 0;
let inFlight = 0;
let activeSince = 0;

/** The counters since the last reset (cursors still open count what they have read so far). */
export function readMeter(reset: boolean): MeterReading {
  for (const { sql, cursor } of cursors.splice(0)) {
    const { rowsRead, rowsWritten } = cursor;
    folded = { rowsRead: folded.rowsRead + rowsRead, rowsWritten: folded.rowsWritten + rowsWritten };
    const entry = (bySql[sql] ??= { runs: 0, rowsWritten: 0, rowsRead: 0 });
    entry.runs += 1;
    entry.rowsWritten += rowsWritten;
    entry.rowsRead += rowsRead;
  }
  let databaseBytes = 0;
  for (const size of databases.values()) databaseBytes += size;
  const reading = { ...folded, statements, alarmsSet, workerRequests, doRequests, activeMs, databaseBytes, bySql };
  if (reset) {
    folded = { rowsRead: 0, rowsWritten: 0 };
    bySql = {};
    statements = alarmsSet = workerRequests = doRequests = activeMs = 0;
  }
  return reading;
}

/** Methods called on the proxy run on the real object (native methods need their own `this`). */
function withOverrides<T extends object>(target: T, overrides: Partial<Record<PropertyKey, unknown>>): T {
  return new Proxy(target, {
    get(t, key) {
      if (key in overrides) return overrides[key];
      const value = Reflect.get(t, key, t);
      return typeof value === "function" ? value.bind(t) : value;
    },
  });
}

/**
 * Meters `ctx` in place (workerd's DurableObject base takes no stand-in for its state): the object's
 * storage gets its own `sql` and `setAlarm` properties, which shadow the native ones for every caller.
 */
export function meterState(ctx: DurableObjectState): DurableObjectState {
  const storage = ctx.storage;
  const sql = storage.sql;
  if (ctx.storage !== storage) throw new Error("sql-meter: ctx.storage is not one object; it cannot be metered in place");
  const id = ctx.id.toString();
  const exec = (query: string, ...bindings: unknown[]) => {
    const cursor = sql.exec(query, ...bindings);
    statements += 1;
    cursors.push({ sql: query.replace(/\s+/g, " ").trim().slice(0, 80), cursor });
    databases.set(id, sql.databaseSize);
    return cursor;
  };
  const setAlarm: DurableObjectStorage["setAlarm"] = (time, options) => {
    alarmsSet += 1;
    return Reflect.apply(Object.getPrototypeOf(storage).setAlarm, storage, [time, options]);
  };
  Object.defineProperty(storage, "sql", { value: withOverrides(sql, { exec }) });
  Object.defineProperty(storage, "setAlarm", { value: setAlarm });
  return ctx;
}

/** Counts a request to the entry Worker, or one the object gets other than through a metered stub (an alarm). */
export function countRequest(to: "worker" | "object"): void {
  if (to === "worker") workerRequests += 1;
  else doRequests += 1;
}

async function timedRequest<T>(call: () => Promise<T>): Promise<T> {
  doRequests += 1;
  if (inFlight++ === 0) activeSince = performance.now();
  try {
    return await call();
  } finally {
    if (--inFlight === 0) activeMs += performance.now() - activeSince;
  }
}

function meterStub<T extends object>(stub: T): T {
  return new Proxy(stub, {
    get(t, key) {
      const value = Reflect.get(t, key, t);
      if (typeof value !== "function" || typeof key !== "string" || key === "then") return value;
      // Called as a method of the stub: an RPC property's own `apply` would be a remote call.
      return (...args: unknown[]) =>
        timedRequest(() => Promise.resolve((t as Record<string, (...a: unknown[]) => unknown>)[key]!(...args)));
    },
  });
}

/** `ns` with metered stubs; typed loosely (any class's namespace), the caller keeps its own type. */
export function meterNamespace<T>(ns: T): T {
  const real = ns as unknown as { get(id: unknown, options?: unknown): object; getByName(name: string, options?: unknown): object };
  const get = (id: unknown, options?: unknown) => meterStub(real.get(id, options));
  const getByName = (name: string, options?: unknown) => meterStub(real.getByName(name, options));
  return withOverrides(real, { get, getByName }) as T;
}
