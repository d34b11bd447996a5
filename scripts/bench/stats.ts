/**
 * The bench's shared plumbing: summaries of timing samples (nearest-rank p50/p95, mean, min, max), the
 * headline figures with the project's targets (report only, never an assertion) printed as a table, the
 * machine they ran on, and a wait for idle CPUs before a measurement. Pure functions over plain arrays,
 * except `waitForIdleCpus` (reads /proc/stat on Linux; elsewhere returns at once).
 * Invariant: an empty sample set summarizes to n = 0 with NaN figures, never throws.
 */
import { existsSync, readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

export type Summary = { n: number; p50: number; p95: number; mean: number; min: number; max: number };
export type Headline = { name: string; value: number; unit: string; target?: { op: "<=" | ">=" | "=="; value: number } };

/** Nearest-rank percentile of sorted values: the smallest value with at least p% of samples at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  const mean = n === 0 ? Number.NaN : sorted.reduce((sum, x) => sum + x, 0) / n;
  return {
    n,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    mean,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Rounds to `digits` decimals for the report (JSON keeps these rounded values too). */
export function round(value: number, digits = 2): number {
  return Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : value;
}

export function describeMachine() {
  const cpuModel = existsSync("/proc/cpuinfo")
    ? /model name\s*:\s*(.+)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim()
    : undefined;
  return {
    cpus: cpus().length,
    cpuModel: cpuModel ?? cpus()[0]?.model ?? "unknown",
    memoryGiB: round(totalmem() / 1024 ** 3, 1),
    node: process.version,
  };
}

export function meetsTarget({ target, value }: Headline): boolean | undefined {
  if (!target) return undefined;
  if (!Number.isFinite(value)) return false;
  return target.op === "<=" ? value <= target.value : target.op === ">=" ? value >= target.value : value === target.value;
}

const formatNumber = (v: number) => (!Number.isFinite(v) || Number.isInteger(v) ? String(v) : String(round(v, Math.abs(v) >= 100 ? 0 : 2)));

export function formatTable(headlines: readonly Headline[]): string {
  const rows = headlines.map((h) => {
    const met = meetsTarget(h);
    const target = h.target ? `${h.target.op} ${formatNumber(h.target.value)}` : "";
    return [h.name, `${formatNumber(h.value)} ${h.unit}`.trim(), target, met === undefined ? "" : met ? "ok" : "MISSED"];
  });
  const header = ["measure", "value", "target", ""];
  const widths = header.map((_, i) => Math.max(header[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** Busy and total jiffies of all CPUs together, from the aggregate `cpu` line of /proc/stat. */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, x) => sum + x, 0);
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total }; // idle + iowait
}

/**
 * Resolves once the CPUs were busy less than `busyBelow` of the time over one window, or at the timeout.
 * Seeding leaves work behind that is not the step's (wrangler digests a seed's ~1,000 log lines for
 * seconds after its turn), and on two cores it would be timed as part of the longer sessions' steps.
 */
export async function waitForIdleCpus({ busyBelow = 0.1, windowMs = 250, timeoutMs = 60_000 } = {}) {
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
