/**
 * An object for an id no session was created under stores nothing: whatever is asked of it (a snapshot,
 * a page, events, approvals, a socket, the alarm), it answers "unknown" and its SQLite database stays empty.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createSession } from "./support.ts";

/** Tables in the object's database, leaving out the runtime's own (`_cf_…`). */
async function tablesOf(name: string): Promise<string[]> {
  const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(name));
  return runInDurableObject(stub, (_instance, state) =>
    state.storage.sql
      .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE name NOT LIKE '\\_cf\\_%' ESCAPE '\\'`)
      .toArray()
      .map((r) => r.name),
  );
}

describe("an unknown session id", () => {
  it("leaves the object's storage empty after every kind of request", async () => {
    const id = `unknown-${crypto.randomUUID()}`;
    const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(id));
    expect(await stub.snapshot(undefined)).toMatchObject({ ok: false, reason: "not_found" });
    expect(await stub.snapshot("some-key")).toMatchObject({ ok: false });
    expect(await stub.messagePage(undefined, undefined, 10)).toMatchObject({ ok: false });
    expect(await stub.openEvents(undefined, 0)).toMatchObject({ ok: false });
    expect(await stub.abort(undefined)).toMatchObject({ ok: false });
    expect(await stub.decideApproval(undefined, "call_1", true)).toMatchObject({ ok: false });
    expect(await stub.dropWrittenDraft("someTool")).toBe(false);
    await runInDurableObject(stub, async (instance) => instance.alarm());
    expect(await tablesOf(id)).toEqual([]);
  });

  it("stores nothing when reached through the API without a key", async () => {
    const session = await createSession();
    // An id of the same shape as an issued one, never created.
    const id = `${session.id.slice(0, -4)}${session.id.slice(-4) === "aaaa" ? "bbbb" : "aaaa"}`;
    const res = await api(`/v1/sessions/${id}`);
    expect([401, 404]).toContain(res.status);
    expect(await tablesOf(id)).toEqual([]);
  });

  it("creates the schema when the session is created", async () => {
    const session = await createSession();
    expect(await tablesOf(session.id)).toEqual(
      expect.arrayContaining(["meta", "messages", "events", "queue", "tool_call_journal", "approvals"]),
    );
  });
});
