/**
 * Idle event streams do not keep the session's Durable Object active: the Worker holds each SSE response
 * and follows the object through a hibernatable WebSocket. Shown by evicting the object while only idle
 * subscribers are connected (eviction keeps hibernatable sockets, closes everything else) and checking
 * that they then receive the next run's events, in order, without a gap or a duplicate; and that a
 * client reconnecting with Last-Event-ID after the object slept gets exactly what it missed.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  createSession,
  nextResponse,
  openEvents,
  script,
  send,
  snapshotOf,
  type SseEvent,
  type SseReader,
  type TestSession,
  stubOf,
} from "./support.ts";

/** Marks the live instance, so a later look tells whether the object was torn down in between. */
async function markInstance(session: TestSession): Promise<void> {
  await runInDurableObject(stubOf(session), (instance) => void Object.assign(instance, { instanceMark: "before" }));
}

async function instanceMark(session: TestSession): Promise<unknown> {
  return runInDurableObject(stubOf(session), (instance) => (instance as unknown as { instanceMark?: string }).instanceMark);
}

async function runTurn(session: TestSession, text: string): Promise<void> {
  await script(session, { text });
  await send(session, `say ${text}`);
  await nextResponse(session);
}

const seqs = (events: SseEvent[]) => events.map((e) => Number(e.id));
const contiguousFrom = (first: number, n: number) => Array.from({ length: n }, (_, i) => first + i);

async function readRun(reader: SseReader): Promise<SseEvent[]> {
  return reader.until("runEnd");
}

describe("idle event streams", () => {
  it("let the object be evicted while subscribers stay connected, and deliver the next run without a gap", async () => {
    const session = await createSession();
    await runTurn(session, "first");
    const fromStart = await openEvents(session);
    const firstRun = await readRun(fromStart);
    const live = await openEvents(session, ((await snapshotOf(session)) as unknown as { lastEventSeq: number }).lastEventSeq);

    await markInstance(session);
    await evictDurableObject(stubOf(session));
    expect(await instanceMark(session)).toBeUndefined(); // a new instance: the old one was torn down

    await script(session, { text: "second" });
    await send(session, "say second");
    const secondRun = await readRun(fromStart);
    const seenLive = await readRun(live);

    const all = [...firstRun, ...secondRun];
    expect(seqs(all)).toEqual(contiguousFrom(1, all.length));
    expect(seqs(seenLive)).toEqual(seqs(secondRun));
    expect(secondRun.at(-1)!.json).toMatchObject({ type: "runEnd", stopReason: "stop" });
    await fromStart.cancel();
    await live.cancel();
  });

  it("survive several sleeps: each run after an eviction reaches the subscriber once, in order", async () => {
    const session = await createSession();
    const reader = await openEvents(session);
    const seen: SseEvent[] = [];
    for (const text of ["one", "two", "three"]) {
      await evictDurableObject(stubOf(session)).catch(() => undefined); // not running yet is fine too
      await script(session, { text });
      await send(session, `say ${text}`);
      seen.push(...(await readRun(reader)));
    }
    expect(seqs(seen)).toEqual(contiguousFrom(1, seen.length));
    expect(seen.filter((e) => e.event === "runEnd")).toHaveLength(3);
    await reader.cancel();
  });

  it("replay across a sleep: a client reconnecting with Last-Event-ID gets exactly what it missed", async () => {
    const session = await createSession();
    await runTurn(session, "first");
    const first = await openEvents(session);
    const firstRun = await readRun(first);
    const lastSeen = Number(firstRun.at(-1)!.id);
    await first.cancel();

    await evictDurableObject(stubOf(session));
    await runTurn(session, "missed"); // nobody listening
    await evictDurableObject(stubOf(session));

    const again = await openEvents(session, lastSeen);
    const missed = await readRun(again);
    expect(seqs(missed)).toEqual(contiguousFrom(lastSeen + 1, missed.length));
    expect(missed.at(-1)!.json).toMatchObject({ type: "runEnd", response: { content: [{ type: "text", text: "missed" }] } });
    // And the same stream carries on live.
    await script(session, { text: "live" });
    await send(session, "say live");
    const liveRun = await readRun(again);
    expect(Number(liveRun[0]!.id)).toBe(Number(missed.at(-1)!.id) + 1);
    await again.cancel();
  });

  it("end when the session shuts down, after its last events", async () => {
    const session = await createSession();
    const reader = await openEvents(session);
    await runTurn(session, "bye");
    await readRun(reader);
    const res = await (await import("./support.ts")).api(`/v1/sessions/${session.id}`, { method: "DELETE", key: session.key });
    expect(res.status).toBe(200);
    expect(await reader.next(5_000)).toBeUndefined();
  });
});
