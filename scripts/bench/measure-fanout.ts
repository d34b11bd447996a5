/**
 * Many idle subscribers: `subscribers` SSE streams spread over `sessions` sessions, all connected at once
 * through the Worker (each followed by a hibernatable socket to its session's object). Measures the
 * workerd memory each connected subscriber costs, then runs one turn in every session and checks every
 * subscriber got each of its session's events exactly once (lost and duplicated counted), with the
 * fan-out latency: receipt time − the event's `ts` (the Worker's clock, whole ms, same machine).
 */
import { randomUUID } from "node:crypto";
import { SseParser } from "../../src/client/index.ts";
import type { AgentClient } from "../../src/client/index.ts";
import { createBenchSession, runTurn, type BenchSession } from "./driver.ts";
import { processRssBytes } from "./inspect-workerd.ts";
import { summarize, type Summary } from "./stats.ts";

export type FanoutOptions = { sessions: number; subscribersPerSession: number; processGroup: number | undefined };

export type FanoutResult = {
  sessions: number;
  subscribers: number;
  /** Receipt − event ts over every event every subscriber got, ms. */
  latencyMs: Summary;
  lost: number;
  duplicated: number;
  /** workerd resident memory with all subscribers connected minus before, per subscriber. */
  rssPerSubscriberKiB: number;
};

/** Streams opened at once while connecting, so the connect burst does not time out. */
const CONNECT_CONCURRENCY = 50;
/** Turns run at once: every session gets one, with this many in flight. */
const TURN_CONCURRENCY = 10;
/** Time for memory to settle after the last stream connected. */
const SETTLE_MS = 1_000;
const DELIVERY_TIMEOUT_MS = 60_000;

type Subscriber = {
  session: number;
  seqs: number[];
  latencies: number[];
  sawRunEnd: boolean;
  controller: AbortController;
  done: Promise<void>;
};

async function subscribe(url: string, key: string, session: number): Promise<Subscriber> {
  const controller = new AbortController();
  const subscriber: Subscriber = { session, seqs: [], latencies: [], sawRunEnd: false, controller, done: Promise.resolve() };
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" }, signal: controller.signal });
  if (!res.ok || !res.body) throw new Error(`subscribe failed: ${res.status}`);
  const reader = res.body.getReader();
  const parser = new SseParser();
  subscriber.done = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const receivedAt = Date.now(); // whole ms, like the ts it is compared with (a clock both processes share)
        for (const item of parser.feed(value)) {
          if (item.kind !== "message" || item.id === undefined) continue;
          const event = JSON.parse(item.data) as { seq: number; ts: number; type: string };
          subscriber.seqs.push(event.seq);
          subscriber.latencies.push(receivedAt - event.ts);
          if (event.type === "runEnd") subscriber.sawRunEnd = true;
        }
      }
    } catch {
      // aborted at the end
    }
  })();
  return subscriber;
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

export async function measureFanout(client: AgentClient, baseUrl: string, options: FanoutOptions): Promise<FanoutResult> {
  const sessions: BenchSession[] = [];
  for (let i = 0; i < options.sessions; i++)
    sessions.push(await createBenchSession(client, ["benchEcho"], `fan-${randomUUID().slice(0, 4)}`));
  const rssBefore = processRssBytes("workerd", options.processGroup);
  const subscribers: Subscriber[] = [];
  const slots = sessions.flatMap((s, i) => Array.from({ length: options.subscribersPerSession }, () => ({ s, i })));
  await inBatches(slots, CONNECT_CONCURRENCY, async ({ s, i }) => {
    subscribers.push(await subscribe(`${baseUrl}/v1/sessions/${encodeURIComponent(s.handle.id)}/events`, s.handle.key, i));
  });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const rssAfter = processRssBytes("workerd", options.processGroup);

  await inBatches(sessions, TURN_CONCURRENCY, async (s) => void (await runTurn(s, "turn")));
  const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
  while (subscribers.some((s) => !s.sawRunEnd) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

  // Each session's events are 1..N (its runEnd is the last); what a subscriber lacks is lost.
  const lastSeq = new Map<number, number>();
  for (const sub of subscribers) lastSeq.set(sub.session, Math.max(lastSeq.get(sub.session) ?? 0, ...sub.seqs));
  let lost = 0;
  let duplicated = 0;
  for (const sub of subscribers) {
    const unique = new Set(sub.seqs);
    duplicated += sub.seqs.length - unique.size;
    lost += (lastSeq.get(sub.session) ?? 0) - unique.size;
  }
  for (const sub of subscribers) sub.controller.abort();
  await Promise.all(subscribers.map((s) => s.done));
  return {
    sessions: options.sessions,
    subscribers: subscribers.length,
    latencyMs: summarize(subscribers.flatMap((s) => s.latencies)),
    lost,
    duplicated,
    rssPerSubscriberKiB: (rssAfter - rssBefore) / 1024 / Math.max(1, subscribers.length),
  };
}
