/**
 * The write buffer and the stores that use it, on a session object's real SQLite storage: rows queued by a
 * step are written together, never lost, visible to every read, published only once stored; the tool
 * journal is keyed by run and its `executing` row is stored before a call that must not run twice may run
 * (an idempotent call's waits for the next flush), and it is emptied when a runEnd is stored; the schema's
 * view and triggers are replaced when an older deployment left others; the journal's earlier table is migrated.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EventLog } from "../../src/session/event-log.ts";
import { MessageStore } from "../../src/session/message-store.ts";
import { applySchema, ROUTED_TABLES } from "../../src/session/session-schema.ts";
import { SqlToolJournal } from "../../src/session/tool-journal.ts";
import { ROUTING_VIEW, WriteBuffer } from "../../src/session/write-buffer.ts";
import { createSession } from "./support.ts";

/** Runs `fn` inside a fresh session object, with a buffer of its own over the object's storage. */
async function inSession<T>(fn: (sql: SqlStorage, buffer: WriteBuffer) => T | Promise<T>): Promise<T> {
  const session = await createSession();
  const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id));
  return runInDurableObject(stub, (_instance, state) => fn(state.storage.sql, new WriteBuffer(state.storage.sql, ROUTED_TABLES)));
}

/** The object's SQL storage with its `exec` calls counted (each costs the same whatever it does). */
function counted(sql: SqlStorage): { sql: SqlStorage; calls: () => number } {
  let calls = 0;
  const exec = sql.exec.bind(sql);
  const wrapped = Object.create(sql) as SqlStorage;
  wrapped.exec = ((query: string, ...bindings: SqlStorageValue[]) => {
    calls++;
    return exec(query, ...bindings);
  }) as SqlStorage["exec"];
  return { sql: wrapped, calls: () => calls };
}

const storedSeqs = (sql: SqlStorage, after: number) => sql.exec<{ seq: number }>(`SELECT seq FROM events WHERE seq > ? ORDER BY seq`, after).toArray().map((r) => r.seq);

describe("the write buffer", () => {
  it("stores a burst larger than one statement's bound-value limit whole and in order", async () => {
    const seqs = await inSession((sql, buffer) => {
      const log = new EventLog(sql, buffer, "s");
      const first = log.lastSeq;
      for (let i = 0; i < 80; i++) log.append({ type: "messageDelta", text: `t${i}` }, "run", 0, () => undefined);
      buffer.flush();
      return { first, stored: storedSeqs(sql, first) };
    });
    expect(seqs.stored).toEqual(Array.from({ length: 80 }, (_, i) => seqs.first + i + 1));
  });

  it("writes a flush's rows of several tables in one statement, each table's rows in their order", async () => {
    const written = await inSession((sql) => {
      const { sql: countedSql, calls } = counted(sql);
      const buffer = new WriteBuffer(countedSql, ROUTED_TABLES);
      const messages = new MessageStore(sql, buffer);
      const log = new EventLog(sql, buffer, "s");
      const journal = new SqlToolJournal(sql, buffer, "run-r", false);
      const firstSeq = log.lastSeq;
      const firstMessage = messages.lastSeq();
      for (let i = 0; i < 3; i++) {
        log.append({ type: "messageDelta", text: `e${i}` }, "run-r", 0, () => undefined);
        messages.append({ role: "user", content: [{ type: "text", text: `m${i}` }], timestamp: 0 });
        journal.markStarted(`call_${i}`);
      }
      const before = calls();
      buffer.flush();
      return {
        statements: calls() - before,
        events: storedSeqs(sql, firstSeq).map((seq) => seq - firstSeq),
        messages: messages.after(firstMessage).map((m) => m.content[0]),
        journal: sql.exec(`SELECT tool_call_id, state FROM tool_call_journal WHERE run_id = 'run-r' ORDER BY tool_call_id`).toArray(),
      };
    });
    expect(written).toEqual({
      statements: 1,
      events: [1, 2, 3],
      messages: [0, 1, 2].map((i) => ({ type: "text", text: `m${i}` })),
      journal: [0, 1, 2].map((i) => ({ tool_call_id: `call_${i}`, state: "started" })),
    });
  });

  it("stores rows of several tables past one statement's bound-value limit whole and in order", async () => {
    const written = await inSession((sql, buffer) => {
      const messages = new MessageStore(sql, buffer);
      const log = new EventLog(sql, buffer, "s");
      const firstSeq = log.lastSeq;
      const firstMessage = messages.lastSeq();
      for (let i = 0; i < 60; i++) {
        log.append({ type: "messageDelta", text: `e${i}` }, "run", 0, () => undefined);
        messages.append({ role: "user", content: [{ type: "text", text: `m${i}` }], timestamp: 0 });
      }
      buffer.flush();
      return {
        events: log.readAfter(firstSeq).map((r) => (JSON.parse(r.json) as { text: string }).text),
        messages: messages.after(firstMessage).map((m) => (m.content[0] as { text: string }).text),
      };
    });
    expect(written).toEqual({
      events: Array.from({ length: 60 }, (_, i) => `e${i}`),
      messages: Array.from({ length: 60 }, (_, i) => `m${i}`),
    });
  });

  it("trims events older than the kept window in the macrotask after the append that reaches a trim step", async () => {
    const trimmed = await inSession(async (sql, buffer) => {
      const log = new EventLog(sql, buffer, "s", 100);
      while (log.lastSeq % 500 !== 499) log.append({ type: "runStart" }, "run", 0, () => undefined);
      log.append({ type: "runStart" }, "run", 0, () => undefined);
      buffer.flush();
      const rightAway = log.oldestSeq();
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { rightAway, later: log.oldestSeq(), last: log.lastSeq };
    });
    expect(trimmed.rightAway).toBe(1);
    expect(trimmed.later).toBe(trimmed.last - 100 + 1);
  });

  it("lets every read see the rows still waiting in it", async () => {
    const read = await inSession((sql, buffer) => {
      const messages = new MessageStore(sql, buffer);
      const log = new EventLog(sql, buffer, "s");
      const before = log.lastSeq;
      messages.append({ role: "user", content: [{ type: "text", text: "queued" }], timestamp: 0 });
      log.append({ type: "runStart" }, "run", 0, () => undefined);
      return { page: messages.page(undefined, 10).messages.map((m) => m.content[0]), replay: log.readAfter(before).map((r) => r.type) };
    });
    expect(read.page.at(-1)).toEqual({ type: "text", text: "queued" });
    expect(read.replay).toEqual(["runStart"]);
  });

  it("publishes an event only once its row is stored", async () => {
    const seenStored = await inSession((sql, buffer) => {
      const log = new EventLog(sql, buffer, "s");
      const stored: boolean[] = [];
      for (let i = 0; i < 3; i++) {
        log.append({ type: "runStart" }, "run", 0, (stamped) => stored.push(storedSeqs(sql, stamped.seq - 1)[0] === stamped.seq));
      }
      const publishedBeforeFlush = stored.length;
      buffer.flush();
      return { publishedBeforeFlush, stored };
    });
    expect(seenStored).toEqual({ publishedBeforeFlush: 0, stored: [true, true, true] });
  });

  it("stores what no flush point wrote by the next macrotask", async () => {
    const stored = await inSession(async (sql, buffer) => {
      const log = new EventLog(sql, buffer, "s");
      const before = log.lastSeq;
      log.append({ type: "runStart" }, "run", 0, () => undefined);
      const rightAway = storedSeqs(sql, before).length;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { rightAway, later: storedSeqs(sql, before).length };
    });
    expect(stored).toEqual({ rightAway: 0, later: 1 });
  });
});

describe("the tool journal", () => {
  const result = { content: [{ type: "text" as const, text: "done" }], details: {}, terminate: false };

  it("keeps each run's entries apart, so a model reusing a call id in a later run starts afresh", async () => {
    const seen = await inSession((sql, buffer) => {
      const first = new SqlToolJournal(sql, buffer, "run-a", false);
      first.markStarted("call_0");
      first.markEnded("call_0", result, false);
      buffer.flush();
      return {
        laterRun: new SqlToolJournal(sql, buffer, "run-b", true).lookup("call_0"),
        sameRunResumed: new SqlToolJournal(sql, buffer, "run-a", true).lookup("call_0"),
      };
    });
    expect(seen.laterRun).toBeUndefined();
    expect(seen.sameRunResumed).toEqual({ state: "ended", result, isError: false });
  });

  it("forgets every call once a runEnd is stored, in the same flush, so it never holds more than one run", async () => {
    const rows = await inSession((sql, buffer) => {
      const count = () => sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM tool_call_journal`).one().n;
      const log = new EventLog(sql, buffer, "s");
      const journal = new SqlToolJournal(sql, buffer, "run-a", false);
      journal.markStarted("call_1");
      journal.markExecuting({ type: "function", id: "call_1", name: "slowEcho", arguments: "{}" });
      journal.markEnded("call_1", result, false);
      buffer.flush();
      const duringRun = count();
      const response = { role: "assistant" as const, content: [], stopReason: "stop" as const, timestamp: 0 };
      log.append({ type: "runEnd", response, stopReason: "stop" }, "run-a", 0, () => undefined);
      const beforeFlush = count();
      buffer.flush();
      return { duringRun, beforeFlush, afterRunEnd: count() };
    });
    expect(rows).toEqual({ duringRun: 1, beforeFlush: 1, afterRunEnd: 0 });
  });

  it("has the executing row stored when markExecuting returns, before the tool may run", async () => {
    const state = await inSession((sql, buffer) => {
      const journal = new SqlToolJournal(sql, buffer, "run-a", false);
      journal.markStarted("call_1");
      journal.markExecuting({ type: "function", id: "call_1", name: "slowEcho", arguments: "{}" });
      return sql.exec<{ state: string }>(`SELECT state FROM tool_call_journal WHERE run_id = 'run-a' AND tool_call_id = 'call_1'`).one().state;
    });
    expect(state).toBe("executing");
  });

  it("leaves an idempotent call's executing row to the buffer's next flush (a restart runs it again anyway)", async () => {
    const states = await inSession((sql, buffer) => {
      const journal = new SqlToolJournal(sql, buffer, "run-a", false, (name) => name === "getTime");
      const stateOf = () => sql.exec<{ state: string }>(`SELECT state FROM tool_call_journal WHERE run_id = 'run-a' AND tool_call_id = 'call_2'`).toArray()[0]?.state;
      journal.markStarted("call_2");
      journal.markExecuting({ type: "function", id: "call_2", name: "getTime", arguments: "{}" });
      const whenExecuting = stateOf();
      buffer.flush();
      return { whenExecuting, afterFlush: stateOf() };
    });
    expect(states).toEqual({ whenExecuting: undefined, afterFlush: "executing" });
  });

  it("keeps an ended row written before the call's result message was queued", async () => {
    const state = await inSession((sql, buffer) => {
      const journal = new SqlToolJournal(sql, buffer, "run-a", false);
      journal.markStarted("c");
      journal.markExecuting({ type: "function", id: "c", name: "slowEcho", arguments: "{}" });
      journal.markEnded("c", result, false);
      buffer.flush(); // e.g. another call of the batch is about to execute
      journal.resultQueued("c");
      buffer.flush();
      return sql.exec<{ state: string }>(`SELECT state FROM tool_call_journal WHERE run_id = 'run-a' AND tool_call_id = 'c'`).one().state;
    });
    expect(state).toBe("ended");
  });

  it("drops a still-unwritten ended row once the call's result message is queued", async () => {
    const state = await inSession((sql, buffer) => {
      const journal = new SqlToolJournal(sql, buffer, "run-a", false);
      journal.markStarted("c");
      journal.markExecuting({ type: "function", id: "c", name: "slowEcho", arguments: "{}" });
      journal.markEnded("c", result, false);
      journal.resultQueued("c");
      buffer.flush();
      return sql.exec<{ state: string; json: string | null }>(`SELECT state, json FROM tool_call_journal WHERE run_id = 'run-a' AND tool_call_id = 'c'`).one();
    });
    expect(state).toEqual({ state: "executing", json: null });
  });

  it("finds the routing view current on a later wake, so waking changes no schema", async () => {
    const calls = await inSession((sql) => {
      const { sql: countedSql, calls } = counted(sql);
      applySchema(countedSql);
      return calls();
    });
    expect(calls).toBe(2); // the schema's CREATE … IF NOT EXISTS, and the one read of sqlite_master
  });

  it("replaces a routing trigger an older deployment left, so a flush's rows still reach their tables", async () => {
    const written = await inSession((sql, buffer) => {
      sql.exec(`DROP TRIGGER ${ROUTING_VIEW}_to_messages`);
      sql.exec(`CREATE TRIGGER ${ROUTING_VIEW}_to_messages INSTEAD OF INSERT ON ${ROUTING_VIEW} WHEN NEW.target = 'messages' BEGIN SELECT 1; END`);
      applySchema(sql);
      const messages = new MessageStore(sql, buffer);
      const log = new EventLog(sql, buffer, "s");
      const firstMessage = messages.lastSeq();
      log.append({ type: "runStart" }, "run", 0, () => undefined);
      messages.append({ role: "user", content: [{ type: "text", text: "routed" }], timestamp: 0 });
      buffer.flush();
      return messages.after(firstMessage).map((m) => m.content[0]);
    });
    expect(written).toEqual([{ type: "text", text: "routed" }]);
  });

  it("replaces the journal's run-end trigger an older deployment left, so a stored runEnd still empties the journal", async () => {
    const rows = await inSession((sql, buffer) => {
      sql.exec(`DROP TRIGGER journal_cleared_at_run_end`);
      sql.exec(`CREATE TRIGGER journal_cleared_at_run_end AFTER INSERT ON events WHEN NEW.type = 'runEnd' BEGIN SELECT 1; END`);
      applySchema(sql);
      const journal = new SqlToolJournal(sql, buffer, "run-a", false);
      journal.markStarted("call_1");
      const response = { role: "assistant" as const, content: [], stopReason: "stop" as const, timestamp: 0 };
      new EventLog(sql, buffer, "s").append({ type: "runEnd", response, stopReason: "stop" }, "run-a", 0, () => undefined);
      buffer.flush();
      return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM tool_call_journal`).one().n;
    });
    expect(rows).toBe(0);
  });

  it("moves the rows of the journal's earlier table (keyed by call id alone) to the run-keyed one", async () => {
    const moved = await inSession((sql) => {
      sql.exec(`CREATE TABLE tool_journal (tool_call_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, state TEXT NOT NULL, json TEXT)`);
      sql.exec(`INSERT INTO tool_journal (tool_call_id, run_id, state) VALUES ('old_call', 'old-run', 'executing')`);
      applySchema(sql);
      return {
        rows: sql.exec(`SELECT run_id, tool_call_id, state FROM tool_call_journal WHERE tool_call_id = 'old_call'`).toArray(),
        oldTable: sql.exec(`SELECT name FROM sqlite_master WHERE name = 'tool_journal'`).toArray().length,
      };
    });
    expect(moved).toEqual({ rows: [{ run_id: "old-run", tool_call_id: "old_call", state: "executing" }], oldTable: 0 });
  });
});
