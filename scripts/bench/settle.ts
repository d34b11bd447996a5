/**
 * Waits until the machine's CPUs are idle before a measurement starts. Seeding leaves work behind that is
 * not the step's (wrangler digests a seed's ~1,000 log lines for seconds after its turn), and on two cores
 * it would be timed as part of the longer sessions' steps. Reads /proc/stat (Linux); elsewhere returns at once.
 */
import { existsSync, readFileSync } from "node:fs";

/** Busy and total jiffies of all CPUs together, from the aggregate `cpu` line of /proc/stat. */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, x) => sum + x, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

export type SettleOptions = { busyBelow?: number; windowMs?: number; timeoutMs?: number };

/**
 * Resolves once the CPUs were busy less than `busyBelow` (a fraction of all of them) over one window, or at
 * the timeout; returns how long it waited (ms) and whether the machine settled.
 */
export async function waitForIdleCpus({
  busyBelow = 0.1,
  windowMs = 250,
  timeoutMs = 60_000,
}: SettleOptions = {}): Promise<{ waitedMs: number; settled: boolean }> {
  const started = performance.now();
  if (!existsSync("/proc/stat")) return { waitedMs: 0, settled: false };
  while (performance.now() - started < timeoutMs) {
    const before = cpuTimes();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = cpuTimes();
    const total = after.total - before.total;
    if (total > 0 && (after.busy - before.busy) / total < busyBelow) return { waitedMs: performance.now() - started, settled: true };
  }
  return { waitedMs: performance.now() - started, settled: false };
}
