/**
 * The tool-call journal on a session object's real SQLite storage: entries are kept per run (a model that
 * reuses a call id in a later run starts afresh), a resumed run finds its earlier attempt's entries (started
 * and ended from the run's toolExecStart / toolExecEnd events, executing from its own row), the `executing`
 * row is stored by the time markExecuting returns (before the tool may run), no other transition writes a
 * row, and clearing at the run's end leaves no row behind.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/core/index.ts";
import { EventLog } from "../../src/session/events/event-log.ts";
import { StepWrites } from "../../src/session/run/step-writes.ts";
import { SqlToolJournal } from "../../src/session/run/tool-journal.ts";
import { createSession } from "./support.ts";

/** Runs `fn` in a new session's object, with step writes and an event log of its own over its storage. */
async function inSession<T>(fn: (sql: SqlStorage, writes: StepWrites, log: EventLog) => T | Promise<T>): Promise<T> {
  const session = await createSession();
  const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id));
  return runInDurableObject(stub, (_instance, state) => {
    const writes = new StepWrites(state.storage);
    return fn(state.storage.sql, writes, new EventLog(state.storage.sql, writes, session.id));
  });
}

/** The next macrotask: the step's writes are stored by then. */
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

const result = { content: [{ type: "text" as const, text: "done" }], details: {}, terminate: false };
const call = (id: string) => ({ type: "function" as const, id, name: "slowEcho", arguments: "{}" });
/**
 * What the event sink stores before each transition, through the session's event log (with the step's
 * writes, as a run stores them): the call's toolExecStart, or its toolExecEnd with the result.
 */
function storeEvent(log: EventLog, runId: string, toolCallId: string, end?: { result: typeof result; isError: boolean }): void {
  const event: AgentEvent = end
    ? { type: "toolExecEnd", toolCallId, toolName: "slowEcho", ...end }
    : { type: "toolExecStart", toolCallId, toolName: "slowEcho", arguments: {} };
  log.append(event, runId, Date.now(), () => {});
}
const stateOf = (sql: SqlStorage, runId: string, id: string) =>
  sql.exec<{ state: string }>(`SELECT state FROM tool_call_journal WHERE run_id = ? AND tool_call_id = ?`, runId, id).toArray()[0]?.state;

describe("the tool journal", () => {
  it("keeps each run's entries apart, so a model reusing a call id in a later run starts afresh", async () => {
    const seen = await inSession(async (sql, writes, log) => {
      const first = new SqlToolJournal(sql, writes, "run-a", false);
      storeEvent(log, "run-a", "call_0");
      first.markStarted(call("call_0"));
      storeEvent(log, "run-a", "call_0", { result, isError: false });
      first.markEnded(call("call_0"), result, false);
      await nextTask();
      return {
        laterRun: new SqlToolJournal(sql, writes, "run-b", true).lookup("call_0"),
        sameRunResumed: new SqlToolJournal(sql, writes, "run-a", true).lookup("call_0"),
      };
    });
    expect(seen.laterRun).toBeUndefined();
    expect(seen.sameRunResumed).toEqual({ state: "ended", result, isError: false });
  });

  it("has the executing row stored when markExecuting returns, before the tool may run", async () => {
    const state = await inSession((sql, writes) => {
      const journal = new SqlToolJournal(sql, writes, "run-a", false);
      journal.markStarted(call("call_1"));
      journal.markExecuting(call("call_1"));
      return stateOf(sql, "run-a", "call_1");
    });
    expect(state).toBe("executing");
  });

  it("writes no row for an idempotent call, which a resumed run finds started (from its event) and runs again", async () => {
    const seen = await inSession(async (sql, writes, log) => {
      const journal = new SqlToolJournal(sql, writes, "run-a", false, (name) => name === "getTime");
      storeEvent(log, "run-a", "call_2");
      journal.markStarted({ ...call("call_2"), name: "getTime" });
      journal.markExecuting({ ...call("call_2"), name: "getTime" });
      await nextTask();
      return { row: stateOf(sql, "run-a", "call_2"), resumed: new SqlToolJournal(sql, writes, "run-a", true).lookup("call_2") };
    });
    expect(seen).toEqual({ row: undefined, resumed: { state: "started" } });
  });

  it("never moves an ended call back, and a resumed run sees where each call got", async () => {
    const entries = await inSession(async (sql, writes, log) => {
      const journal = new SqlToolJournal(sql, writes, "run-a", false);
      storeEvent(log, "run-a", "a");
      journal.markStarted(call("a"));
      storeEvent(log, "run-a", "b");
      journal.markStarted(call("b"));
      journal.markExecuting(call("b"));
      storeEvent(log, "run-a", "b", { result, isError: true });
      journal.markEnded(call("b"), result, true);
      journal.markExecuting(call("b"));
      await nextTask();
      const resumed = new SqlToolJournal(sql, writes, "run-a", true);
      return [resumed.lookup("a"), resumed.lookup("b")];
    });
    expect(entries).toEqual([{ state: "started" }, { state: "ended", result, isError: true }]);
  });

  it("holds no row once cleared at the run's end", async () => {
    const rows = await inSession((sql, writes) => {
      const journal = new SqlToolJournal(sql, writes, "run-a", false);
      journal.markStarted(call("c"));
      journal.markExecuting(call("c"));
      journal.clear();
      writes.flush();
      return { rows: sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM tool_call_journal`).one().n, lookup: journal.lookup("c") };
    });
    expect(rows).toEqual({ rows: 0, lookup: undefined });
  });
});
