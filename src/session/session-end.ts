/**
 * A session's end of life: DELETE (after the run driver has stopped everything) and the idle deadline
 * erase all of the session's storage, keeping only a small tombstone so later requests answer 410
 * instead of 404. Called by AgentSession; the tombstone is the only row left in the object.
 */
import { SessionMeta } from "./storage/session-meta.ts";
import { migrate } from "./storage/session-schema.ts";

/**
 * `owner`: what opened the session (its key's hash, its user), kept so that only a caller who could open
 * it hears 410; anyone else hears what an unknown session answers. Absent on tombstones written before.
 */
export type Tombstone = {
  id: string;
  erasedAt: number;
  reason: "deleted" | "expired";
  owner?: { keyHash: string; userId?: string };
};

const TOMBSTONE_KEY = "tombstone";

/** The tombstone, if the session was erased (call only on an object with a schema). */
export function readTombstone(sql: SqlStorage): Tombstone | undefined {
  return new SessionMeta(sql).read<Tombstone>(TOMBSTONE_KEY);
}

/** Records that the session ends (DELETE or expiry): the one stored "shut down", written before anything stops. */
export function writeTombstone(sql: SqlStorage, id: string, reason: Tombstone["reason"], owner?: Tombstone["owner"]): Tombstone {
  const tombstone: Tombstone = { id, erasedAt: Date.now(), reason, ...(owner ? { owner } : {}) };
  new SessionMeta(sql).write(TOMBSTONE_KEY, tombstone);
  return tombstone;
}

/** Erases every table and the alarm, then writes the tombstone again: the only row left. */
export async function eraseSession(storage: DurableObjectStorage, tombstone: Tombstone): Promise<void> {
  await storage.deleteAlarm();
  await storage.deleteAll();
  migrate(storage.sql);
  new SessionMeta(storage.sql).write(TOMBSTONE_KEY, tombstone);
}

export function goneMessage(tombstone: Tombstone): string {
  return tombstone.reason === "expired" ? "Session expired after being idle and was erased" : "Session was deleted";
}
