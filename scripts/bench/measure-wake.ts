/**
 * What a session costs as it ages: sessions seeded to 10, 1,000 and 10,000 messages (realistic bytes),
 * then `wrangler dev` restarted several times on the same state. After each restart every session is
 * woken by its first request (a snapshot), in a rotating order: that request's time is the wake time,
 * and the isolate's JS heap after a garbage collection, before and after, is what the woken session
 * keeps in memory. Also the bytes of a snapshot (what the web page loads).
 */
import type { AgentClient } from "../../src/client/index.ts";
import { createBenchSession, nowMs, runTurn, type BenchSession } from "./driver.ts";
import { openInspector, usedHeapAfterGc } from "./inspect-workerd.ts";
import { summarize, type Summary } from "./stats.ts";

export type WakeOptions = { sizes: number[]; restarts: number };
export type RunningDev = { client: AgentClient; url: string; inspectorPort: number };

export type WakeResult = {
  restarts: number;
  bySize: { history: number; wakeMs: Summary; heapKiB: Summary; snapshotBytes: number }[];
  /** p50 wake time of the largest size ÷ the smallest. */
  wakeRatioP50: number;
  /** Median heap kept by the largest session minus the smallest's (KiB): ~0 when memory is flat in age. */
  heapGrowthKiB: number;
};

/** Messages seeded per turn: a run may make 32 LLM calls, and batches of 200 calls fill 5,000 in 25. */
const SEED_PER_TURN = 5_000;
const SEED_BATCH = 200;

async function seedTo(session: BenchSession, size: number): Promise<void> {
  for (let target = Math.min(size, SEED_PER_TURN); ; target = Math.min(size, target + SEED_PER_TURN)) {
    await runTurn(session, `seed ${target} ${SEED_BATCH}`);
    if (target >= size) return;
  }
}

async function bytesOf(url: string, key: string): Promise<number> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return (await res.arrayBuffer()).byteLength;
}

/** `restart` stops the running `wrangler dev` and starts it again on the same persisted state. */
const log = (message: string) => process.stderr.write(`[bench] wake: ${message}\n`);

export async function measureWake(dev: RunningDev, restart: () => Promise<RunningDev>, options: WakeOptions): Promise<WakeResult> {
  const sessions = new Map<number, BenchSession>();
  for (const size of options.sizes) {
    const session = await createBenchSession(dev.client, ["benchEcho"], `wake${size}`);
    await seedTo(session, size);
    sessions.set(size, session);
    log(`seeded ${size}`);
  }
  const warm = await createBenchSession(dev.client, ["benchEcho"], "wake-warm");
  const snapshotBytes = new Map<number, number>();
  for (const [size, { handle }] of sessions)
    snapshotBytes.set(size, await bytesOf(`${dev.url}/v1/sessions/${encodeURIComponent(handle.id)}`, handle.key));

  const wake = new Map<number, number[]>(options.sizes.map((s) => [s, []]));
  const heap = new Map<number, number[]>(options.sizes.map((s) => [s, []]));
  log("sizes measured");
  for (let r = 0; r < options.restarts; r++) {
    dev = await restart();
    log(`restart ${r + 1}`);
    // The first object of a fresh isolate pays one-time costs (module, SQLite): a tiny session takes them.
    await dev.client.session(warm.handle.id, warm.handle.key).snapshot();
    const inspector = await openInspector(dev.inspectorPort);
    try {
      let before = await usedHeapAfterGc(inspector);
      for (let i = 0; i < options.sizes.length; i++) {
        const size = options.sizes[(r + i) % options.sizes.length]!;
        const { handle } = sessions.get(size)!;
        const attached = dev.client.session(handle.id, handle.key);
        const t0 = nowMs();
        await attached.snapshot();
        wake.get(size)!.push(nowMs() - t0);
        const after = await usedHeapAfterGc(inspector);
        heap.get(size)!.push((after - before) / 1024);
        before = after;
      }
    } finally {
      inspector.close();
    }
  }
  const bySize = options.sizes.map((size) => ({
    history: size,
    wakeMs: summarize(wake.get(size)!),
    heapKiB: summarize(heap.get(size)!),
    snapshotBytes: snapshotBytes.get(size)!,
  }));
  const first = bySize[0]!;
  const last = bySize.at(-1)!;
  return {
    restarts: options.restarts,
    bySize,
    wakeRatioP50: last.wakeMs.p50 / first.wakeMs.p50,
    heapGrowthKiB: last.heapKiB.p50 - first.heapKiB.p50,
  };
}
