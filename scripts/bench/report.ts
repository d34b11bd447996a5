/**
 * The benchmark's output: the machine it ran on, every result, and the headline figures checked against
 * the project's targets (report only, never an assertion). Printed as a table; the same data goes to JSON.
 */
import { readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { round } from "./stats.ts";

export type Machine = { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };

export type Headline = { name: string; value: number; unit: string; target?: { op: "<=" | ">=" | "=="; value: number } };

export function describeMachine(): Machine {
  let cpuModel = cpus()[0]?.model ?? "unknown";
  try {
    cpuModel = /model name\s*:\s*(.+)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? cpuModel;
  } catch {
    // Not Linux: os.cpus() is good enough.
  }
  return {
    cpus: cpus().length,
    cpuModel,
    memoryGiB: round(totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

export function meetsTarget(headline: Headline): boolean | undefined {
  const { target, value } = headline;
  if (!target) return undefined;
  if (!Number.isFinite(value)) return false;
  if (target.op === "<=") return value <= target.value;
  if (target.op === ">=") return value >= target.value;
  return value === target.value;
}

export function formatTable(headlines: readonly Headline[]): string {
  const rows = headlines.map((h) => {
    const met = meetsTarget(h);
    return [
      h.name,
      `${formatNumber(h.value)} ${h.unit}`.trim(),
      h.target ? `${h.target.op} ${formatNumber(h.target.value)}` : "",
      met === undefined ? "" : met ? "ok" : "MISSED",
    ];
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

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return String(value);
  return String(round(value, Math.abs(value) >= 100 ? 0 : 2));
}
