/**
 * Reads of a byte-heavy session are bounded by bytes, not only by count: with 23 image messages of
 * ~900 KB, a page of history stops early with a cursor, the snapshot's last page likewise, and the event
 * replay (over the socket path and over RPC) reaches every event in order, one bounded page at a time.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_PAGE_BYTES } from "../../src/session/storage/message-store.ts";
import { api, createSession, nextResponse, openEvents, script, SseReader, type TestSession } from "./support.ts";

const IMAGES = 23;
const IMAGE_CHARS = 900_000;

let session: TestSession;
let lastSeq: number;

beforeAll(async () => {
  session = await createSession();
  await script(session, ...Array.from({ length: IMAGES }, (_, i) => ({ text: `seen ${i}` })));
  for (let i = 0; i < IMAGES; i++) {
    const data = String.fromCharCode(65 + (i % 26)).repeat(IMAGE_CHARS);
    const res = await api(`/v1/sessions/${session.id}/messages`, {
      method: "POST",
      key: session.key,
      json: {
        content: [
          { type: "text", text: `image ${i}` },
          { type: "image", mimeType: "image/png", data },
        ],
      },
    });
    expect(res.status).toBe(202);
    await nextResponse(session);
  }
  const snapshot = await api(`/v1/sessions/${session.id}`, { key: session.key });
  lastSeq = ((await snapshot.json()) as { lastEventSeq: number }).lastEventSeq;
}, 120_000);

type Page = { messages: { role: string }[]; before: number | null };

// Each test moves tens of megabytes through storage and RPC: slow on a loaded machine, so a wider timeout.
describe("a byte-heavy session", { timeout: 90_000 }, () => {
  it("pages its history within the byte budget and reaches every message through the cursor", async () => {
    const seen: Page[] = [];
    for (let before: number | null | undefined; before !== null; ) {
      const res = await api(`/v1/sessions/${session.id}/messages?limit=500${before ? `&before=${before}` : ""}`, { key: session.key });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text.length).toBeLessThan(MAX_PAGE_BYTES + IMAGE_CHARS * 1.1);
      const page = JSON.parse(text) as Page;
      seen.push(page);
      before = page.before;
    }
    expect(seen.length).toBeGreaterThan(1);
    expect(seen[0]!.messages.length).toBeLessThan(2 * IMAGES);
    expect(seen.reduce((n, p) => n + p.messages.length, 0)).toBe(2 * IMAGES);
  });

  it("answers the snapshot with a last page within the byte budget and a cursor to the rest", async () => {
    const res = await api(`/v1/sessions/${session.id}`, { key: session.key });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeLessThan(MAX_PAGE_BYTES + IMAGE_CHARS * 1.1);
    expect((JSON.parse(text) as { messagesBefore: number | null }).messagesBefore).not.toBeNull();
  });

  it("replays every event in order through the events route, a reader that falls behind resuming from where it got", async () => {
    const seqs: number[] = [];
    for (let connections = 0; seqs.at(-1) !== lastSeq; connections++) {
      expect(connections).toBeLessThan(100);
      // As an EventSource does: a stream cut for falling behind is reopened with the last id it saw.
      const events = await openEvents(session, seqs.at(-1) ?? 0);
      for (let event = await events.next(30_000); event; event = seqs.at(-1) === lastSeq ? undefined : await events.next(30_000)) {
        if (event.id !== undefined) seqs.push(Number(event.id));
      }
      await events.cancel();
    }
    expect(seqs).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
  });

  it("replays every event in order over RPC, then stays live", async () => {
    const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id));
    const opened = await stub.openEvents(session.key, 0);
    if (!opened.ok) throw new Error(opened.message);
    const events = new SseReader(new Response(opened.value));
    const seqs: number[] = [];
    while (seqs.at(-1) !== lastSeq) seqs.push(Number((await events.next(30_000))!.id));
    expect(seqs).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
    await script(session, { text: "live" });
    await api(`/v1/sessions/${session.id}/messages`, { method: "POST", key: session.key, json: { content: "one more" } });
    expect((await events.until("runEnd")).every((e) => Number(e.id) > lastSeq)).toBe(true);
    await events.cancel();
  });
});
