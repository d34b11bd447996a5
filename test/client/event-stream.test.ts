import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClientError, createClient, type ConnectionState, type SessionStreamEvent } from "../../src/client/index.ts";
import { eventsDropped } from "../../src/wire/events.ts";
import { formatSse } from "../../src/wire/sse.ts";
import { openSse, resumeAfter, startTestServer, take, wireEvent, wireEvents, type Handler, type TestServer } from "./support.ts";
import { sleep } from "../support/time.ts";

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: Handler): Promise<TestServer> {
  server = await startTestServer(handler);
  return server;
}

function eventsOf(url: string, options: Parameters<ReturnType<ReturnType<typeof createClient>["session"]>["events"]>[0] = {}) {
  return createClient({ baseUrl: url }).session("s_test", "sk_secret").events(options);
}

const seqs = (events: SessionStreamEvent[]) => events.map((e) => ("seq" in e ? e.seq : e.type));

/** Writes `text`, then destroys the socket once the bytes are handed to the kernel. */
function writeThenCut(res: ServerResponse, text: string): void {
  res.write(text, () => res.destroy());
}

describe("SessionHandle.events", () => {
  it("yields stamped events in order and authorizes with the session key", async () => {
    const { url, requests } = await serve((_req, res) => {
      openSse(res, 20);
      res.write(wireEvents(1, 3));
    });
    const events = eventsOf(url);
    const got = await take(events, 3);
    await events.return();
    expect(seqs(got)).toEqual([1, 2, 3]);
    expect(got[1]).toEqual({ type: "messageDelta", text: "t2", seq: 2, sessionId: "s_test", ts: 1_002 });
    expect(requests[0]).toMatchObject({ url: "/v1/sessions/s_test/events", authorization: "Bearer sk_secret", lastEventId: undefined });
  });

  it("reconnects after a cut in the middle of an event with Last-Event-ID of the last whole event, yielding each event once", async () => {
    const total = 10;
    const { url, requests } = await serve((req, res) => {
      const after = resumeAfter(req);
      openSse(res, 20);
      if (after + 4 >= total) return void res.write(wireEvents(after + 1, total));
      const half = wireEvent(after + 5);
      writeThenCut(res, wireEvents(after + 1, after + 4) + half.slice(0, half.length / 2));
    });
    const events = eventsOf(url);
    const got = await take(events, total);
    await events.return();
    expect(seqs(got)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(requests.map((r) => r.lastEventId)).toEqual([undefined, "4", "8"]);
  });

  it("drops events it already yielded when a server replays from an earlier seq", async () => {
    let connections = 0;
    const { url } = await serve((_req, res) => {
      openSse(res, 20);
      if (connections++ === 0) return writeThenCut(res, wireEvents(1, 3));
      res.write(wireEvents(1, 5)); // ignores Last-Event-ID
    });
    const events = eventsOf(url);
    const got = await take(events, 5);
    await events.return();
    expect(seqs(got)).toEqual([1, 2, 3, 4, 5]);
  });

  it("resumes where it stopped after the server restarts on the same port", async () => {
    let available = 3;
    const srv = await serve((req, res) => {
      openSse(res, 20);
      res.write(wireEvents(resumeAfter(req) + 1, available));
    });
    const states: ConnectionState[] = [];
    const events = eventsOf(srv.url, { onConnectionChange: (state) => states.push(state) });
    const first = await take(events, 3);
    const pending = take(events, 3);
    await srv.close(); // the client sees the drop, then refused connections while down
    await sleep(300);
    available = 6;
    await srv.restart();
    const second = await pending;
    await events.return();
    expect(seqs([...first, ...second])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(srv.requests.at(-1)?.lastEventId).toBe("3");
    expect(srv.requests.length).toBe(2); // refused connections never reach the handler
    expect(states.filter((s) => s === "open")).toHaveLength(2);
    expect(states.at(-1)).toBe("closed");
  });

  it("throws ApiClientError when a reconnect is refused with 401, instead of retrying forever", async () => {
    let connections = 0;
    const { url, requests } = await serve((_req, res) => {
      if (connections++ === 0) {
        openSse(res, 20);
        return writeThenCut(res, wireEvents(1, 2));
      }
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "unauthorized", message: "Missing session key" } }));
    });
    const events = eventsOf(url);
    expect(seqs(await take(events, 2))).toEqual([1, 2]);
    const error: unknown = await events.next().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiClientError);
    expect(error).toMatchObject({ status: 401, code: "unauthorized", message: "Missing session key" });
    await sleep(100);
    expect(requests).toHaveLength(2);
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it("retries a 503 answer and then continues the stream", async () => {
    let connections = 0;
    const { url, requests } = await serve((req, res) => {
      const n = connections++;
      if (n === 1) {
        res.writeHead(503, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ error: { code: "internal", message: "busy" } }));
      }
      openSse(res, 20);
      if (n === 0) return writeThenCut(res, wireEvents(1, 2));
      res.write(wireEvents(resumeAfter(req) + 1, 4));
    });
    const events = eventsOf(url);
    const got = await take(events, 4);
    await events.return();
    expect(seqs(got)).toEqual([1, 2, 3, 4]);
    expect(requests.map((r) => r.lastEventId)).toEqual([undefined, "2", "2"]);
  });

  it("waits the server's retry: interval before reconnecting", async () => {
    const times: number[] = [];
    const { url } = await serve((req, res) => {
      times.push(Date.now());
      openSse(res, 300);
      if (times.length === 1) return writeThenCut(res, wireEvents(1, 1));
      res.write(wireEvents(resumeAfter(req) + 1, 2));
    });
    const events = eventsOf(url);
    await take(events, 2);
    await events.return();
    const gap = times[1]! - times[0]!;
    expect(gap).toBeGreaterThanOrEqual(280);
    expect(gap).toBeLessThan(900); // not the 1 s default
  });

  it("backs off further while reconnect attempts keep failing", async () => {
    const times: number[] = [];
    const { url } = await serve((req, res) => {
      times.push(Date.now());
      if (times.length === 1) {
        openSse(res, 40);
        return writeThenCut(res, wireEvents(1, 1));
      }
      if (times.length <= 5) {
        res.writeHead(502);
        return void res.end();
      }
      openSse(res, 40);
      res.write(wireEvents(resumeAfter(req) + 1, 2));
    });
    const events = eventsOf(url);
    await take(events, 2);
    await events.return();
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // 40 after the healthy connection, 40 after the first failure, then doubling: 80, 160, 320.
    expect(gaps[0]).toBeLessThan(150);
    expect(gaps[4]).toBeGreaterThanOrEqual(300);
    expect(gaps[4]!).toBeGreaterThan(gaps[1]! * 3);
  });

  it("yields an eventsDropped notice for trimmed events and continues with the replay", async () => {
    const { url } = await serve((_req, res) => {
      openSse(res, 20);
      res.write(formatSse({ event: "eventsDropped", data: JSON.stringify(eventsDropped("s_test", 2, 5, 1_000)) }) + wireEvents(5, 6));
    });
    const events = eventsOf(url, { lastEventId: 2 });
    const got = await take(events, 3);
    await events.return();
    expect(got[0]).toMatchObject({ type: "eventsDropped", oldestSeq: 5, message: "Events 3–4 are no longer retained; replay starts at 5" });
    expect(seqs(got.slice(1))).toEqual([5, 6]);
  });

  it("starts after the given lastEventId and yields nothing at or below it", async () => {
    const { url, requests } = await serve((_req, res) => {
      openSse(res, 20);
      res.write(wireEvents(6, 9));
    });
    const events = eventsOf(url, { lastEventId: 7 });
    const got = await take(events, 2);
    await events.return();
    expect(seqs(got)).toEqual([8, 9]);
    expect(requests[0]?.lastEventId).toBe("7");
  });

  it("treats a connection silent past idleTimeoutMs as dead and reconnects", async () => {
    let connections = 0;
    const { url, requests } = await serve((req, res) => {
      openSse(res, 20);
      res.write(wireEvents(resumeAfter(req) + 1, ++connections)); // then silence
    });
    const events = eventsOf(url, { idleTimeoutMs: 200 });
    const got = await take(events, 2);
    await events.return();
    expect(seqs(got)).toEqual([1, 2]);
    expect(requests.map((r) => r.lastEventId)).toEqual([undefined, "1"]);
  });

  it("ends cleanly when its signal aborts and closes the connection", async () => {
    let closed = false;
    const { url } = await serve((_req, res) => {
      res.on("close", () => (closed = true));
      openSse(res, 20);
      res.write(wireEvents(1, 1));
    });
    const controller = new AbortController();
    const events = eventsOf(url, { signal: controller.signal });
    await take(events, 1);
    const next = events.next();
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    await sleep(50);
    expect(closed).toBe(true);
  });

  it("closes the connection when the caller leaves a for-await loop", async () => {
    let closed = false;
    const { url } = await serve((_req, res) => {
      res.on("close", () => (closed = true));
      openSse(res, 20);
      res.write(wireEvents(1, 3));
    });
    const got: SessionStreamEvent[] = [];
    for await (const event of eventsOf(url)) {
      got.push(event);
      if (got.length === 2) break;
    }
    await sleep(50);
    expect(seqs(got)).toEqual([1, 2]);
    expect(closed).toBe(true);
  });
});
