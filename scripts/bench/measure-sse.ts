/**
 * SSE delivery, through the client SDK's reconnecting event stream. Latency: a tool emits partial results
 * spaced apart, and each toolExecUpdate's receipt time here minus its `ts` (the Worker's Date.now() when it
 * was recorded; same machine clock, whole milliseconds) is one sample. Throughput: a tool emits partial
 * results as fast as it can while several subscribers listen; events per second per subscriber and in total.
 */
import type { AgentClient, SessionStreamEvent } from "../../src/client/index.ts";
import { createBenchSession, epochMs, runTurn, type BenchSession } from "./driver.ts";
import { summarize, type Summary } from "./stats.ts";

type Received = { event: SessionStreamEvent; at: number };

/** A subscriber collecting every event with its receipt time until runEnd; counts reconnects. */
type Subscriber = { received: Received[]; reconnects: number; done: Promise<void>; stop(): void };

/** Subscribes from the session's current end and resolves `done` once `runEnds` runEnd events arrived. */
async function subscribe(session: BenchSession, runEnds = 1): Promise<Subscriber> {
  const snapshot = await session.handle.snapshot();
  const controller = new AbortController();
  const received: Received[] = [];
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const subscriber: Subscriber = { received, reconnects: 0, done: Promise.resolve(), stop: () => controller.abort() };
  const stream = session.handle.events({
    lastEventId: snapshot.lastEventSeq,
    signal: controller.signal,
    onConnectionChange: (state) => {
      if (state === "open") opened();
      if (state === "reconnecting") subscriber.reconnects += 1;
    },
  });
  subscriber.done = (async () => {
    let ends = 0;
    for await (const event of stream) {
      received.push({ event, at: epochMs() });
      if (event.type === "runEnd" && ++ends >= runEnds) break;
    }
  })();
  await open;
  return subscriber;
}

const updatesOf = (received: Received[]) => received.filter((r) => r.event.type === "toolExecUpdate");

export type SseLatencyResult = { events: number; spacingMs: number; latencyMs: Summary; reconnects: number };

export async function measureSseLatency(client: AgentClient, options: { events: number; spacingMs: number }): Promise<SseLatencyResult> {
  const session = await createBenchSession(client, ["benchStream"], "sse-latency");
  const subscriber = await subscribe(session);
  await runTurn(session, `stream ${options.events} ${options.spacingMs}`);
  await subscriber.done;
  subscriber.stop();
  const samples = updatesOf(subscriber.received).map((r) => r.at - ("ts" in r.event ? r.event.ts : r.at));
  return { ...options, latencyMs: summarize(samples), reconnects: subscriber.reconnects };
}

export type SseThroughputResult = {
  events: number;
  subscribers: number;
  /** Updates each subscriber received (must equal `events`). */
  receivedPerSubscriber: number[];
  /** Per subscriber: updates ÷ (last update − toolExecStart) in seconds; the slowest subscriber's figure. */
  minEventsPerSecond: number;
  /** All updates delivered to all subscribers ÷ the whole window. */
  totalEventsPerSecond: number;
  windowMs: number;
  reconnects: number;
};

export async function measureSseThroughput(
  client: AgentClient,
  options: { events: number; subscribers: number },
): Promise<SseThroughputResult> {
  const session = await createBenchSession(client, ["benchStream"], "sse-throughput");
  const subscribers: Subscriber[] = [];
  for (let i = 0; i < options.subscribers; i++) subscribers.push(await subscribe(session));
  await runTurn(session, `stream ${options.events} 0`);
  await Promise.all(subscribers.map((s) => s.done));
  for (const s of subscribers) s.stop();

  const windows = subscribers.map((s) => {
    const start = s.received.find((r) => r.event.type === "toolExecStart")?.at ?? Number.NaN;
    const updates = updatesOf(s.received);
    return { start, end: updates.at(-1)?.at ?? Number.NaN, count: updates.length };
  });
  const start = Math.min(...windows.map((w) => w.start));
  const end = Math.max(...windows.map((w) => w.end));
  const total = windows.reduce((sum, w) => sum + w.count, 0);
  return {
    ...options,
    receivedPerSubscriber: windows.map((w) => w.count),
    minEventsPerSecond: Math.min(...windows.map((w) => (w.count / (w.end - w.start)) * 1000)),
    totalEventsPerSecond: (total / (end - start)) * 1000,
    windowMs: end - start,
    reconnects: subscribers.reduce((sum, s) => sum + s.reconnects, 0),
  };
}
