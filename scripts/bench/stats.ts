/**
 * Summaries of timing samples for the benchmark: median and p95 (nearest-rank), mean, min, max.
 * Called by every measurement module; pure functions over plain arrays of milliseconds.
 * Invariant: an empty sample set summarizes to n = 0 with NaN figures, never throws.
 */

export type Summary = { n: number; p50: number; p95: number; mean: number; min: number; max: number };

/** Nearest-rank percentile of sorted values: the smallest value with at least p% of samples at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
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
    min: n === 0 ? Number.NaN : sorted[0]!,
    max: n === 0 ? Number.NaN : sorted[n - 1]!,
  };
}

/** Rounds to `digits` decimals for the report (JSON keeps these rounded values too). */
export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
