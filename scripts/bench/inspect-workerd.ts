/**
 * Looking inside the Worker's workerd from the bench: a Chrome DevTools protocol session with its isolate
 * (the `--inspector-port` of `wrangler dev`) for the JS heap after a garbage collection, and the resident
 * memory of the workerd processes from /proc (Linux). Node 22's global WebSocket speaks the protocol.
 * Used by measure-wake.ts (heap) and measure-fanout.ts (memory).
 */
import { readdirSync, readFileSync } from "node:fs";

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

/**
 * The isolate's used JS heap in bytes, after a full garbage collection. workerd's inspector never answers
 * HeapProfiler.collectGarbage, but a heap snapshot collects garbage first (its chunks are ignored).
 */
export async function usedHeapAfterGc(inspector: Inspector): Promise<number> {
  await inspector.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  const { usedSize } = (await inspector.send("Runtime.getHeapUsage")) as { usedSize: number };
  return usedSize;
}

/** Resident memory of the processes whose command name matches (in one process group if given), in bytes. */
export function processRssBytes(commandName: string, processGroup?: number): number {
  let kib = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]); // after the name: state ppid pgrp
      if (name !== commandName || (processGroup !== undefined && pgrp !== processGroup)) continue;
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return kib * 1024;
}
