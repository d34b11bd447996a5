/**
 * The session queues on a session object's real SQLite storage: the depths kept in memory match the table
 * through offers, drains and restores, and a wake (a new SessionQueues over the same storage)
 * counts the same; draining returns follow-ups first, then input, each in arrival order.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { UserMessage } from "../../src/core/index.ts";
import { QUEUE_CAPACITY, SessionQueues } from "../../src/session/storage/session-queues.ts";
import { createSession } from "./support.ts";

async function inSession<T>(fn: (sql: SqlStorage) => T): Promise<T> {
  const session = await createSession();
  const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id));
  return runInDurableObject(stub, (_instance, state) => {
    state.storage.sql.exec(`DELETE FROM queue`);
    return fn(state.storage.sql);
  });
}

const user = (text: string): UserMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });
const textOf = (m: UserMessage | undefined) => (m?.content[0] as { text: string } | undefined)?.text;

type Depths = { input: number; followUp: number };

function tableDepths(sql: SqlStorage): Depths {
  const out: Depths = { input: 0, followUp: 0 };
  for (const row of sql.exec<{ kind: keyof Depths; n: number }>(`SELECT kind, COUNT(*) AS n FROM queue GROUP BY kind`))
    out[row.kind] = row.n;
  return out;
}

it("keeps each queue's depth in step with the table, and a wake counts the same", async () => {
  const seen = await inSession((sql) => {
    const queues = new SessionQueues(sql);
    const checks: { kept: Depths; table: Depths; woken: Depths }[] = [];
    const check = () => checks.push({ kept: queues.depths(), table: tableDepths(sql), woken: new SessionQueues(sql).depths() });
    queues.offer("input", "a", user("a"));
    queues.offer("followUp", "b", user("b"));
    check();
    queues.drainPending();
    check();
    queues.offer("input", "c", user("c"));
    queues.restore("d", user("d"));
    check();
    return checks;
  });
  for (const { kept, table, woken } of seen) expect([kept, woken]).toEqual([table, table]);
  expect(seen.map((c) => c.kept)).toEqual([
    { input: 1, followUp: 1 },
    { input: 0, followUp: 0 },
    { input: 2, followUp: 0 },
  ]);
});

it("refuses a message to a queue a previous wake filled", async () => {
  const accepted = await inSession((sql) => {
    const before = new SessionQueues(sql);
    for (let i = 0; i < QUEUE_CAPACITY.input; i++) before.offer("input", `m${i}`, user(`m${i}`));
    return new SessionQueues(sql).offer("input", "one more", user("one more"));
  });
  expect(accepted).toBe(false);
});

it("drains follow-ups first, then input, each in arrival order", async () => {
  const drained = await inSession((sql) => {
    const queues = new SessionQueues(sql);
    queues.offer("input", "i1", user("i1"));
    queues.offer("followUp", "f1", user("f1"));
    queues.offer("input", "i2", user("i2"));
    queues.offer("followUp", "f2", user("f2"));
    return { first: queues.drainPending().map(textOf), again: queues.drainPending() };
  });
  expect(drained).toEqual({ first: ["f1", "f2", "i1", "i2"], again: [] });
});
