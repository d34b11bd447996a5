/**
 * What a turn costs on Cloudflare, in the bill's own units, for a Workers runtime built with the meter
 * (sql-meter.ts): this Worker (metered-entry.ts) and, with `--peers`, the Agents SDK's AIChatAgent
 * (bench/peers). The reference turn is a user message, two tool steps and the (streamed) answer, on a
 * session seeded to each size. Counts (rows, requests, bytes) come from inside workerd and do not depend on
 * the machine; the object's active time and the entry Worker's CPU are timings (the CPU is workerd's
 * process CPU over the turns ÷ turns: it includes the object's own, so it over-estimates the Worker's).
 * A step's figures are (a 21-step turn − a 1-step turn) ÷ 20. Priced at PRICES: dollars per million
 * turns, the model excluded, its wait included for a 2 s reply (the object is billed while it waits).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startWranglerDev } from "../../support/wrangler-dev.ts";
import { benchVars, createBenchClient, createBenchSession, runTurn, streamVars } from "./driver.ts";
import type { Headline } from "./stats.ts";
import type { MeterReading } from "./sql-meter.ts";

/** A metered runtime: sessions seeded to a size whose turns run against the bench LLM, and its meter. */
export type MeteredRuntime = {
  name: string;
  seed(size: number): Promise<{ turn(command: string): Promise<void> }>;
  /** The meter's counters since the last reset (GET /__bench/meter). */
  meter(reset: boolean): Promise<MeterReading>;
  processGroup: number | undefined;
};

/** Cloudflare's list prices (docs/benchmarks.md "What a turn costs" has each source and the date read). */
export const PRICES = {
  workerRequestPerMillion: 0.3,
  workerCpuPerMillionMs: 0.02,
  doRequestPerMillion: 0.15,
  doGbSecondPerMillion: 12.5,
  doMemoryGb: 0.125,
  rowsReadPerMillion: 0.001,
  rowsWrittenPerMillion: 1,
  storedGbMonth: 0.2,
};
/** The reference turn's LLM calls (two tool steps and the answer), each waiting MODEL_REPLY_MS when priced with the model's wait. */
const REFERENCE = { command: "steps 2", llmCalls: 3 };
const MODEL_REPLY_MS = 2_000;

/** One turn's (or step's) units; `alarmsSet` writes the storage API's hidden alarm row, priced as a row written. */
export type TurnUnits = Omit<MeterReading, "bySql" | "databaseBytes"> & { bytesStored: number };

/** `bySql`: rows written and read by statement in one reference turn (which writes a turn makes). */
export type CostAtSize = { history: number; turn: TurnUnits; step: TurnUnits; workerCpuMs: number; bySql: MeterReading["bySql"] } & {
  dollarsPerMillionTurns: number;
  dollarsPerMillionTurnsModelWait: number;
};

export type CostResult = { runtime: string; turnsPerSize: number; bySize: CostAtSize[] };

const combine = (list: TurnUnits[], f: (values: number[]) => number): TurnUnits =>
  Object.fromEntries(Object.keys(list[0]!).map((k) => [k, f(list.map((u) => u[k as keyof TurnUnits]))])) as TurnUnits;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export function dollarsPerMillion(u: TurnUnits, workerCpuMs: number, modelWaitMs = 0): number {
  const p = PRICES;
  const gbSeconds = ((u.activeMs + modelWaitMs) / 1000) * p.doMemoryGb;
  return (
    u.workerRequests * p.workerRequestPerMillion +
    workerCpuMs * p.workerCpuPerMillionMs +
    u.doRequests * p.doRequestPerMillion +
    gbSeconds * p.doGbSecondPerMillion +
    u.rowsRead * p.rowsReadPerMillion +
    (u.rowsWritten + u.alarmsSet) * p.rowsWrittenPerMillion +
    // What a turn adds, kept a month.
    (u.bytesStored / 1e9) * p.storedGbMonth * 1e6
  );
}

export async function measureCost(runtime: MeteredRuntime, sizes: number[], turnsPerSize: number): Promise<CostResult> {
  const bySize: CostAtSize[] = [];
  for (const history of sizes) {
    const session = await runtime.seed(history);
    // One turn first, so the measured ones meet the session as a live deployment's next turn would.
    await session.turn(REFERENCE.command);
    let bySql: MeterReading["bySql"] = {};
    const turnOf = async (command: string): Promise<TurnUnits> => {
      const before = (await runtime.meter(true)).databaseBytes;
      await session.turn(command);
      const { bySql: statements, databaseBytes, ...reading } = await runtime.meter(true);
      bySql = statements;
      return { ...reading, bytesStored: databaseBytes - before };
    };
    const turns: TurnUnits[] = [];
    const cpuBefore = processCpuMs(runtime.processGroup);
    for (let i = 0; i < turnsPerSize; i++) turns.push(await turnOf(REFERENCE.command));
    const workerCpuMs = (processCpuMs(runtime.processGroup) - cpuBefore) / turnsPerSize;
    const referenceBySql = bySql;
    const one = await turnOf("steps 1");
    const many = await turnOf("steps 21");
    const step = combine([many, one], ([m, o]) => (m! - o!) / 20);
    // Counts are the same each turn; bytes grow by whole pages, so their mean over the turns is the figure.
    const turn = { ...combine(turns, median), bytesStored: turns.reduce((sum, t) => sum + t.bytesStored, 0) / turns.length };
    if (turn.rowsWritten <= 0 || step.rowsWritten <= 0)
      throw new Error(
        `${runtime.name}: a turn read as writing ${turn.rowsWritten} rows (a step ${step.rowsWritten}): the meter saw nothing`,
      );
    bySize.push({
      history,
      turn,
      step,
      workerCpuMs,
      dollarsPerMillionTurns: dollarsPerMillion(turn, workerCpuMs),
      dollarsPerMillionTurnsModelWait: dollarsPerMillion(turn, workerCpuMs, REFERENCE.llmCalls * MODEL_REPLY_MS),
      bySql: referenceBySql,
    });
  }
  return { runtime: runtime.name, turnsPerSize, bySize };
}

/** CPU time (user + system) of the workerd processes in a process group, in ms; 0 where /proc is not there. */
function processCpuMs(processGroup: number | undefined): number {
  if (processGroup === undefined || !existsSync("/proc")) return 0;
  let ticks = 0;
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    // Fields after the command (which may hold spaces): state, ppid, pgrp, …, utime (14), stime (15).
    let stat = "";
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      // The process ended while being read.
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (stat.includes("(workerd)") && Number(fields[2]) === processGroup) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

export function costHeadlines(results: CostResult[]): Headline[] {
  const written = (u: TurnUnits) => u.rowsWritten + u.alarmsSet;
  const lines = results.flatMap((r) =>
    r.bySize.flatMap((s) =>
      (
        [
          ["rows written per turn", written(s.turn), "rows"],
          ["rows written per step", s.step.rowsWritten, "rows"],
          ["rows read per turn", s.turn.rowsRead, "rows"],
          ["bytes stored per turn", Math.round(s.turn.bytesStored), "B"],
          ["DO + Worker requests per turn", s.turn.doRequests + s.turn.workerRequests, ""],
          ["bytes stored per step", Math.round(s.step.bytesStored), "B"],
          ["object active per turn (model instant)", s.turn.activeMs, "ms"],
          ["workerd CPU per turn (estimate)", s.workerCpuMs, "ms"],
          ["$ per million turns", s.dollarsPerMillionTurns, "$"],
          ["$ per million turns, 2 s model replies", s.dollarsPerMillionTurnsModelWait, "$"],
        ] as const
      ).map(([what, value, unit]): Headline => ({ name: `cost: ${what}, ${r.runtime}, ${s.history} msgs`, value, unit })),
    ),
  );
  const [ours, peer] = results;
  for (const s of peer ? ours!.bySize : []) {
    const p = peer!.bySize.find((x) => x.history === s.history);
    if (!p) continue;
    const at = `ours ÷ ${peer!.runtime}, ${s.history} msgs`;
    lines.push(
      {
        name: `cost: $ per turn ${at}`,
        value: s.dollarsPerMillionTurns / p.dollarsPerMillionTurns,
        unit: "×",
        target: { op: "<=", value: 0.5 },
      },
      { name: `cost: rows written (alarms included) ${at}`, value: written(s.turn) / written(p.turn), unit: "×" },
    );
  }
  return lines;
}

/** This Worker's cost: its metered build (`wrangler dev` on metered-entry.ts in the bench's copy) measured at `sizes`. */
export async function measureOurCost(copyDir: string, llmUrl: string, sizes: number[], turns: number): Promise<CostResult> {
  const dev = await startWranglerDev({
    cwd: copyDir,
    persistTo: join(copyDir, ".bench-state-cost"),
    vars: { ...benchVars(llmUrl), ...streamVars(true) },
    // The metered entry is TypeScript: wrangler bundles it (wrangler.toml uploads dist/worker/ unbundled).
    extraArgs: ["scripts/bench/metered-entry.ts", "--bundle"],
  });
  const client = createBenchClient(dev.url);
  const seed = async (size: number) => {
    const session = await createBenchSession(client, ["benchEcho"], "cost");
    await runTurn(session, `seed ${size}`);
    return { turn: async (command: string) => void (await runTurn(session, command)) };
  };
  try {
    return await measureCost(
      { name: "this Worker", processGroup: dev.processGroup, seed, meter: (reset) => readMeterOver(dev.url, reset) },
      sizes,
      turns,
    );
  } finally {
    await dev.stop();
  }
}

/** A metered Worker's counters (GET /__bench/meter). */
export async function readMeterOver(url: string, reset: boolean): Promise<MeterReading> {
  const res = await fetch(`${url}/__bench/meter${reset ? "?reset" : ""}`);
  if (!res.ok) throw new Error(`GET /__bench/meter answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as MeterReading;
}
