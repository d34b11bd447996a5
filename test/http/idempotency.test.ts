/**
 * Idempotency-Key on the session POST routes (docs/api.md "Idempotency-Key"): a repeat under the same key gets the
 * first answer and enqueues nothing, another body under the key is 422, malformed keys are 400; creating a
 * session under a key answers the same {id, key} to the same caller only; /chat repeats answer the first
 * run's stream. The table's bounds are checked on a real session's storage, and that none of its rows
 * holds a creation's session key readable.
 */
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/client/index.ts";
import {
  IdempotencyKeys,
  MAX_IDEMPOTENCY_BYTES,
  MAX_IDEMPOTENCY_KEYS,
  IDEMPOTENCY_TTL_MS,
} from "../../src/session/storage/idempotency-keys.ts";
import { api, createSession, llmRequests, nextResponse, script, snapshotOf, type TestSession } from "../session/support.ts";
import { SESSION_ID_PATTERN } from "../../src/signing/session-ids.ts";

const post = (session: TestSession, suffix: string, json: unknown, key?: string, headers: Record<string, string> = {}) =>
  api(`/v1/sessions/${session.id}${suffix}`, {
    method: "POST",
    key: session.key,
    json,
    headers: key === undefined ? headers : { "idempotency-key": key, ...headers },
  });

const userMessage = (text: string) => ({ id: "u1", role: "user", parts: [{ type: "text", text }] });

describe("Idempotency-Key on POST …/messages and …/follow-ups", () => {
  it("answers a repeat with the first messageId and enqueues the message once", async () => {
    const session = await createSession();
    await script(session, { text: "once" });
    const first = await post(session, "/messages", { content: "hello" }, "k-1");
    const again = await post(session, "/messages", { content: "hello" }, "k-1");
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    const firstBody = (await first.json()) as { messageId: string };
    expect(await again.json()).toEqual(firstBody);
    await nextResponse(session);
    const snapshot = await snapshotOf(session);
    expect(snapshot.messages.filter((m) => m.role === "user")).toHaveLength(1);
    expect(await llmRequests(session)).toHaveLength(1);
  });

  it("refuses another body under a used key with 422, and a new key is a new message", async () => {
    const session = await createSession();
    await script(session, { text: "a" }, { text: "b" });
    expect((await post(session, "/follow-ups", { content: "one" }, "k-2")).status).toBe(202);
    const other = await post(session, "/follow-ups", { content: "two" }, "k-2");
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("idempotency_key_reused");
    const fresh = await post(session, "/follow-ups", { content: "two" }, "k-3");
    expect(fresh.status).toBe(202);
  });

  it("answers concurrent repeats with the first answer or a retryable 409, and enqueues once", async () => {
    const session = await createSession();
    await script(session, { text: "once" });
    const answers = await Promise.all([1, 2, 3].map(() => post(session, "/messages", { content: "same" }, "k-race")));
    const ok = answers.filter((r) => r.status === 202);
    const busy = answers.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(3);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const res of busy) {
      expect(res.headers.get("retry-after")).toBe("1");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("idempotency_in_progress");
    }
    expect(new Set(await Promise.all(ok.map(async (r) => ((await r.json()) as { messageId: string }).messageId))).size).toBe(1);
    await nextResponse(session);
    expect((await snapshotOf(session)).messages.filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("refuses a key that is empty, longer than 200 characters or not visible ASCII with 400", async () => {
    const session = await createSession();
    for (const bad of ["", "x".repeat(201), "has space", "tab\tkey"]) {
      const res = await post(session, "/messages", { content: "hi" }, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain("Idempotency-Key");
    }
    expect((await post(session, "/messages", { content: "hi" }, "x".repeat(200))).status).toBe(202);
  });

  it("keeps no answer for a refused request: the same key may be tried again", async () => {
    const session = await createSession();
    const wrongKey = await api(`/v1/sessions/${session.id}/messages`, {
      method: "POST",
      key: "sk_wrong",
      json: { content: "hi" },
      headers: { "idempotency-key": "k-4" },
    });
    expect(wrongKey.status).toBe(404);
    await script(session, { text: "ok" });
    expect((await post(session, "/messages", { content: "hi" }, "k-4")).status).toBe(202);
  });
});

describe("Idempotency-Key on POST /v1/sessions", () => {
  const create = (json: unknown, key: string, address: string) =>
    api("/v1/sessions", { method: "POST", json, headers: { "idempotency-key": key, "x-forwarded-for": address } });

  it("answers the same caller's repeat with the same id and key, and the session works with that key", async () => {
    const key = `create-${crypto.randomUUID()}`;
    const first = await create({ systemPrompt: "p" }, key, "203.0.113.7");
    const again = await create({ systemPrompt: "p" }, key, "203.0.113.7");
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    const created = (await first.json()) as { id: string; key: string };
    expect(await again.json()).toEqual(created);
    expect((await api(`/v1/sessions/${created.id}`, { key: created.key })).status).toBe(200);
  });

  it("keeps the session key only sealed: no stored row holds it, yet a repeat answers it", async () => {
    const idempotencyKey = `create-${crypto.randomUUID()}`;
    const created = (await (await create({}, idempotencyKey, "203.0.113.11")).json()) as { id: string; key: string };
    expect(created.id).toMatch(SESSION_ID_PATTERN);
    const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(created.id));
    const stored = await runInDurableObject(stub, (_instance, state) => {
      const tables = state.storage.sql
        .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'`)
        .toArray();
      return JSON.stringify(tables.map(({ name }) => [name, state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray()]));
    });
    expect(stored).toContain(idempotencyKey); // the creation's row is there
    expect(stored).not.toContain(created.key.slice(3)); // but not the key, with or without its sk_ prefix
    const again = await create({}, idempotencyKey, "203.0.113.11");
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(created);
    expect((await api(`/v1/sessions/${created.id}`, { key: created.key })).status).toBe(200);
  });

  it("gives another caller under the same key a different session, never the first one's key", async () => {
    const key = `create-${crypto.randomUUID()}`;
    const mine = (await (await create({}, key, "203.0.113.8")).json()) as { id: string; key: string };
    const theirs = await create({}, key, "198.51.100.9");
    expect(theirs.status).toBe(201);
    const other = (await theirs.json()) as { id: string; key: string };
    expect(other.id).not.toBe(mine.id);
    expect(other.key).not.toBe(mine.key);
  });

  it("refuses another body under the same key with 422", async () => {
    const key = `create-${crypto.randomUUID()}`;
    expect((await create({ systemPrompt: "a" }, key, "203.0.113.10")).status).toBe(201);
    expect((await create({ systemPrompt: "b" }, key, "203.0.113.10")).status).toBe(422);
  });
});

describe("Idempotency-Key on POST …/chat", () => {
  it("answers a repeat with the first run's stream and starts no second run", async () => {
    const session = await createSession();
    await script(session, { text: "Streamed once." });
    const body = { id: "c1", messages: [userMessage("hi")], trigger: "submit-message" };
    const first = await (await post(session, "/chat", body, "chat-1")).text();
    const again = await post(session, "/chat", body, "chat-1");
    expect(again.status).toBe(200);
    expect(again.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const replayed = await again.text();
    const deltas = (text: string) =>
      text
        .split("\n")
        .filter((l) => l.includes('"text-delta"'))
        .map((l) => (JSON.parse(l.slice(6)) as { delta: string }).delta)
        .join("");
    expect(deltas(first)).toBe("Streamed once.");
    expect(deltas(replayed)).toBe("Streamed once.");
    expect(replayed.split("\n")[0]).toBe(first.split("\n")[0]); // the same start chunk: the same messageId
    expect(await llmRequests(session)).toHaveLength(1);
    expect((await snapshotOf(session)).messages.filter((m) => m.role === "user")).toHaveLength(1);
  });
});

describe("the idempotency table's bounds", () => {
  it("keeps at most its count and bytes, forgetting the oldest keys first, and forgets keys after 24 h", async () => {
    const session = await createSession();
    const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id));
    const result = await runInDurableObject(stub, (_instance, state) => {
      const keys = new IdempotencyKeys(state.storage.sql);
      const t0 = 1_000_000;
      for (let i = 0; i < MAX_IDEMPOTENCY_KEYS + 10; i++) {
        keys.claim(`n${i}`, "f", t0 + i);
        keys.remember(`n${i}`, "f", "{}", t0 + i);
      }
      const count = state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM idempotency_keys`).one().n;
      const oldestGone = keys.lookup("n0", t0 + 1000) === undefined;
      const newestKept = keys.lookup(`n${MAX_IDEMPOTENCY_KEYS + 9}`, t0 + 1000) !== undefined;
      const big = "x".repeat(8_000);
      for (let i = 0; i < 100; i++) keys.remember(`b${i}`, "f", big, t0 + 2_000 + i);
      const bytes = state.storage.sql.exec<{ b: number }>(`SELECT SUM(bytes) AS b FROM idempotency_keys`).one().b;
      const expired = keys.lookup("b99", t0 + 2_099 + IDEMPOTENCY_TTL_MS + 1) === undefined;
      return { count, oldestGone, newestKept, bytes, expired };
    });
    expect(result.count).toBe(MAX_IDEMPOTENCY_KEYS);
    expect(result.oldestGone).toBe(true);
    expect(result.newestKept).toBe(true);
    expect(result.bytes).toBeLessThanOrEqual(MAX_IDEMPOTENCY_BYTES);
    expect(result.bytes).toBeGreaterThan(MAX_IDEMPOTENCY_BYTES - 8_100);
    expect(result.expired).toBe(true);
  });
});

describe("the client SDK after a dropped response", () => {
  it("retries under the same key and the session stores the message once", async () => {
    let dropped = 0;
    // The first answer is lost after the Worker handled the request: the SDK sees a network failure.
    const flaky = createClient({
      baseUrl: "http://edge.test",
      fetch: async (input, init) => {
        const res = await SELF.fetch(input, init);
        if ((init?.method ?? "GET") === "POST" && dropped++ === 0) throw new TypeError("network connection lost");
        return res;
      },
    });
    const session = await createSession();
    await script(session, { text: "answered once" });
    const handle = flaky.session(session.id, session.key);
    const { messageId } = await handle.send("only once, please");
    expect(dropped).toBe(2);
    expect(typeof messageId).toBe("string");
    await nextResponse(session);
    expect((await snapshotOf(session)).messages.filter((m) => m.role === "user")).toHaveLength(1);
    expect(await llmRequests(session)).toHaveLength(1);
  });
});
