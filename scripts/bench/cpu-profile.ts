/**
 * CPU profiles of a workerd isolate over the Chrome DevTools protocol (the `--inspector-port` of
 * `wrangler dev`), and a text summary of one: self and total time per function, per step. Used by
 * profile-step.ts. Node 22's global WebSocket speaks the protocol; nothing else is needed. Also the CPU
 * time workerd used (from /proc), a figure a busy machine inflates far less than wall-clock gaps.
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

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };

export async function startCpuProfile(inspectorPort: number): Promise<{ stop(): Promise<CpuProfile> }> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { webSocketDebuggerUrl?: string; title?: string }[];
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
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
  await send("Profiler.start");
  return {
    async stop() {
      const { profile } = (await send("Profiler.stop")) as { profile: CpuProfile };
      socket.close();
      return profile;
    },
  };
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

/** CPU seconds (user + system) used so far by the processes whose command name matches, from /proc (Linux). */
export function processCpuSeconds(commandName: string, processGroup?: number): number {
  const ticksPerSecond = 100; // USER_HZ on Linux
  let ticks = 0;
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
    // After the name: state ppid pgrp session … utime (14th field of the line, 12th here) stime.
    if (name !== commandName || (processGroup !== undefined && Number(fields[2]) !== processGroup)) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / ticksPerSecond;
}
