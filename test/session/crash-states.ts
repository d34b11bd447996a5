/**
 * States a crash (or a clock jump, or the event log's trim) can leave a session's storage in, built
 * through the session's own storage modules rather than by writing its tables by hand; where no module
 * makes the state (a clock jump, a trim), its one statement is here: a schema change means changing the
 * owner module and this file, never the tests. Each runs inside the session's object, with no run started by it.
 */
import { runInDurableObject } from "cloudflare:test";
import { RunRecord } from "../../src/session/run/run-record.ts";
import { StepWrites } from "../../src/session/run/step-writes.ts";
import { MessageStore } from "../../src/session/storage/message-store.ts";
import { readSettings } from "../../src/session/session-loader.ts";
import { writeTombstone } from "../../src/session/session-end.ts";
import { SessionMeta } from "../../src/session/storage/session-meta.ts";
import { SessionQueues } from "../../src/session/storage/session-queues.ts";
import { stubOf, type TestSession } from "./support.ts";

const inStorage = <T>(s: TestSession, work: (storage: DurableObjectStorage) => T) =>
  runInDurableObject(stubOf(s), (_instance, state) => work(state.storage));

/** The object stopped between accepting a message and starting its run: the message waits on the input queue. */
export const leavePendingInput = (s: TestSession, text: string) =>
  inStorage(s, ({ sql }) => {
    new SessionQueues(sql).offer("input", crypto.randomUUID(), { role: "user", content: [{ type: "text", text }], timestamp: Date.now() });
  });

/**
 * The object stopped after a message reached an idle session, before its run stored anything: the run's
 * record carries the message (it never went through the input queue).
 */
export const leaveCarriedInput = (s: TestSession, text: string) =>
  inStorage(s, (storage) => {
    const lastSeq = new MessageStore(storage.sql, new StepWrites(storage)).lastSeq();
    new RunRecord(new SessionMeta(storage.sql)).begin(lastSeq, [
      { role: "user", content: [{ type: "text", text }], timestamp: Date.now() },
    ]);
  });

/** An abort was recorded for the running run, then the object stopped before the run could end. */
export const recordAbortRequest = (s: TestSession) =>
  inStorage(s, ({ sql }) => {
    new RunRecord(new SessionMeta(sql)).requestStop("abort");
  });

/** A DELETE recorded its tombstone, then the object stopped before erasing the session. */
export const interruptDelete = (s: TestSession) =>
  inStorage(s, ({ sql }) => {
    writeTombstone(sql, readSettings(sql)!.id, "deleted");
  });

/** Schedule `id` came due `agoMs` ago, as if the clock had jumped past it (nothing fires until the object wakes). */
export const makeScheduleDue = (s: TestSession, id: string, agoMs = 1) =>
  inStorage(s, ({ sql }) => {
    sql.exec("UPDATE schedules SET next_run_at = ? WHERE id = ?", Date.now() - agoMs, id);
  });

/** Schedule `id`'s due time moved by `deltaMs` (negative: the clock jumped past it by that much). */
export const shiftSchedule = (s: TestSession, id: string, deltaMs: number) =>
  inStorage(s, ({ sql }) => {
    sql.exec("UPDATE schedules SET next_run_at = next_run_at + ? WHERE id = ?", deltaMs, id);
  });

/** The event log trimmed through `seq`, as it trims once enough newer events are stored: every row ending at or before it goes. */
export const trimEventLog = (s: TestSession, throughSeq: number) =>
  inStorage(s, ({ sql }) => {
    sql.exec("DELETE FROM events WHERE last_seq <= ?", throughSeq);
  });
