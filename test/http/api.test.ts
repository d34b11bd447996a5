import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { issueSessionId } from "../../src/signing/session-ids.ts";
import { api, createSession, openEvents, script, send } from "../session/support.ts";

describe("session keys", () => {
  it("answers no key, a wrong key and another session's key exactly as an unknown session: nothing tells it exists", async () => {
    const a = await createSession();
    const b = await createSession();
    const unknown = await api(`/v1/sessions/${await issueSessionId(env)}`, { key: a.key });
    const answers = [
      unknown,
      await api(`/v1/sessions/${a.id}`),
      await api(`/v1/sessions/${a.id}`, { key: "sk_wrong" }),
      await api(`/v1/sessions/${a.id}`, { key: b.key }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(JSON.stringify({ error: { code: "not_found", message: "Session not found" } }));
    }
  });

  it("accepts the key as ?key= for EventSource clients", async () => {
    const a = await createSession();
    const res = await api(`/v1/sessions/${a.id}/events?key=${encodeURIComponent(a.key)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    await res.body?.cancel();
  });

  it("answers 404 for an unknown session", async () => {
    const res = await api(`/v1/sessions/s_doesnotexist/messages`, { method: "POST", key: "sk_x", json: { content: "hi" } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("bad input", () => {
  it("names the problem field in a 400 and stores nothing", async () => {
    const s = await createSession();
    const res = await api(`/v1/sessions/${s.id}/messages`, { method: "POST", key: s.key, json: { content: "" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("content");
    const unknownField = await api(`/v1/sessions/${s.id}/messages`, { method: "POST", key: s.key, json: { content: "x", colour: 1 } });
    expect(unknownField.status).toBe(400);
    expect(((await unknownField.json()) as { error: { message: string } }).error.message).toContain("colour");
    const snapshot = (await (await api(`/v1/sessions/${s.id}`, { key: s.key })).json()) as {
      messages: unknown[];
      queues: { input: number };
    };
    expect(snapshot.messages).toHaveLength(0);
    expect(snapshot.queues.input).toBe(0);
  });

  it("answers 400 for invalid JSON and 415 for a non-JSON content type", async () => {
    const s = await createSession();
    const broken = await api(`/v1/sessions/${s.id}/messages`, {
      method: "POST",
      key: s.key,
      body: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    const text = await api(`/v1/sessions/${s.id}/messages`, {
      method: "POST",
      key: s.key,
      body: "hello",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
  });

  it("answers 413 for a body over the limit", async () => {
    const s = await createSession();
    const res = await api(`/v1/sessions/${s.id}/messages`, { method: "POST", key: s.key, json: { content: "x".repeat(1_100_000) } });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: "payload_too_large" } });
  });

  it("rejects unknown tools and bad options when creating a session", async () => {
    const res = await api("/v1/sessions", { method: "POST", json: { tools: ["noSuchTool"] } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("noSuchTool");
    const mode = await api("/v1/sessions", { method: "POST", json: { toolExecution: "sideways" } });
    expect(mode.status).toBe(400);
  });

  it("answers 400 for a Last-Event-ID that is not a sequence number", async () => {
    const s = await createSession();
    const res = await api(`/v1/sessions/${s.id}/events`, { key: s.key, headers: { "last-event-id": "abc" } });
    expect(res.status).toBe(400);
  });

  it("answers unknown routes with a JSON 404", async () => {
    const res = await api("/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("event replay", () => {
  it("replays exactly the events after Last-Event-ID, from the header or the query", async () => {
    const s = await createSession();
    await script(s, { toolCalls: [{ id: "e1", name: "slowEcho", arguments: { text: "a", ms: 3 } }] }, { text: "done" });
    const live = await openEvents(s);
    await send(s, "go");
    const all = await live.until("runEnd");
    await live.cancel();
    const seqs = all.map((e) => Number(e.id));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));

    const cut = seqs[4]!;
    const byQuery = await openEvents(s, cut);
    const replayed = await byQuery.until("runEnd");
    expect(replayed.map((e) => Number(e.id))).toEqual(seqs.filter((q) => q > cut));
    await byQuery.cancel();

    const byHeader = await api(`/v1/sessions/${s.id}/events`, { key: s.key, headers: { "last-event-id": String(seqs.at(-2)) } });
    const { SseReader } = await import("../session/support.ts");
    const reader = new SseReader(byHeader);
    expect((await reader.next())!.id).toBe(String(seqs.at(-1)));
    await reader.cancel();
  });

  it("sends new events live to several subscribers at once", async () => {
    const s = await createSession();
    await script(s, { text: "to everyone" });
    const [one, two] = [await openEvents(s), await openEvents(s)];
    await send(s, "hi");
    const [a, b] = await Promise.all([one.until("runEnd"), two.until("runEnd")]);
    expect(a.map((e) => e.id)).toEqual(b.map((e) => e.id));
    await Promise.all([one.cancel(), two.cancel()]);
  });
});
