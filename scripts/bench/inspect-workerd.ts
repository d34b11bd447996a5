/**
 * Looking inside the Worker's workerd from the bench: a Chrome DevTools protocol session with its isolate
 * (the `--inspector-port` of `wrangler dev`) for CPU profiles (with a per-step text summary) and the JS
 * heap after a garbage collection, and the CPU time and resident memory of the workerd processes from
 * /proc (Linux), figures a busy machine inflates far less than wall-clock timings. Node 22's global
 * WebSocket speaks the protocol; nothing else is needed. Used by profile-step.ts and the measurements.
 */
import { readdirSync, readFileSync } from "node:fs";

export type CpuProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
};
export type CpuProfile = { nodes: CpuProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

/** Sampling period in µs: a step takes ~2 ms, so 50 µs gives ~40 samples per step. */
const SAMPLING_INTERVAL_US = 50;

/** A heap snapshot of a loaded isolate takes seconds on a busy machine; no answer in a minute means none will come. */
const INSPECTOR_TIMEOUT_MS = 60_000;

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };

export type Inspector = { send(method: string, params?: Record<string, unknown>): Promise<unknown>; close(): void };

/** A Chrome DevTools protocol session with the Worker's isolate (wrangler's inspector proxy). */
export async function openInspector(inspectorPort: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { webSocketDebuggerUrl?: string }[];
  const target = targets.find((t) => t.webSocketDebuggerUrl);
  if (!target?.webSocketDebuggerUrl) throw new Error(`No inspectable isolate on port ${inspectorPort}`);
  // The inspector proxy accepts only local origins; Node's WebSocket (undici) sends none unless told.
  const init = { headers: { origin: "http://localhost" } } as unknown as string[];
  const socket = new WebSocket(target.webSocketDebuggerUrl, init);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error("inspector connection failed")), { once: true });
  });
  let nextId = 1;
  const pending = new Map<number, Pending>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiter?.reject(new Error(message.error.message));
    else waiter?.resolve(message.result);
  });
  socket.addEventListener("close", () => {
    for (const waiter of pending.values()) waiter.reject(new Error("inspector connection closed"));
    pending.clear();
  });
  return {
    send: (method, params = {}) =>
      new Promise<unknown>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`inspector: no answer to ${method} within ${INSPECTOR_TIMEOUT_MS} ms`));
        }, INSPECTOR_TIMEOUT_MS);
        const settle = (fn: () => void) => (clearTimeout(timer), fn());
        pending.set(id, { resolve: (v) => settle(() => resolve(v)), reject: (e) => settle(() => reject(e)) });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

export async function startCpuProfile(inspectorPort: number): Promise<{ stop(): Promise<CpuProfile> }> {
  const inspector = await openInspector(inspectorPort);
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
  await inspector.send("Profiler.start");
  return {
    async stop() {
      const { profile } = (await inspector.send("Profiler.stop")) as { profile: CpuProfile };
      inspector.close();
      return profile;
    },
  };
}

/**
 * The isolate's used JS heap in bytes, after a full garbage collection. workerd's inspector never answers
 * HeapProfiler.collectGarbage, but a heap snapshot collects garbage first (its chunks are ignored).
 */
export async function usedHeapAfterGc(inspector: Inspector): Promise<number> {
  await inspector.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  const { usedSize } = (await inspector.send("Runtime.getHeapUsage")) as { usedSize: number };
  return usedSize;
}

/** Resident memory of the processes whose command name matches, in bytes, from /proc (Linux). */
export function processRssBytes(commandName: string, processGroup?: number): number {
  let kib = 0;
  for (const pid of matchingPids(commandName, processGroup)) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return kib * 1024;
}

const IGNORED = new Set(["(idle)", "(root)", "(program)"]);

function frameKey(node: CpuProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*\/(src|node_modules)\//, "$1/");
  return `${functionName || "(anonymous)"} ${file ? `${file}:${lineNumber + 1}` : ""}`.trim();
}

/** Self and total (inclusive) time of the top functions, in µs per step, with the busy time per step. */
export function summarizeProfile(profile: CpuProfile, steps: number, top = 30): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i + 1] ?? 0; // a sample's time is the delta to the next one
    const leaf = byId.get(profile.samples[i]!)!;
    if (leaf.callFrame.functionName === "(idle)") continue;
    busy += delta;
    const leafKey = frameKey(leaf);
    self.set(leafKey, (self.get(leafKey) ?? 0) + delta);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id)!;
      if (IGNORED.has(node.callFrame.functionName)) continue;
      const key = frameKey(node);
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + delta);
    }
  }
  const perStep = (us: number) => (us / Math.max(1, steps)).toFixed(0).padStart(6);
  const table = (title: string, map: Map<string, number>) =>
    [`${title} (µs per step)`, ...[...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, us]) => `${perStep(us)}  ${key}`)].join("\n");
  return [`busy ${perStep(busy)} µs per step`, table("self", self), table("total", total)].join("\n\n");
}

function matchingPids(commandName: string, processGroup?: number): string[] {
  const pids: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the name: state ppid pgrp …
    if (name === commandName && (processGroup === undefined || Number(fields[2]) === processGroup)) pids.push(entry);
  }
  return pids;
}

/** CPU seconds (user + system) used so far by the processes whose command name matches, from /proc (Linux). */
export function processCpuSeconds(commandName: string, processGroup?: number): number {
  const ticksPerSecond = 100; // USER_HZ on Linux
  let ticks = 0;
  for (const pid of matchingPids(commandName, processGroup)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // exited meanwhile
    }
  }
  return ticks / ticksPerSecond;
}
