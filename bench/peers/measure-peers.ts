/**
 * The step against other runtimes, in one run on the same bench LLM: this Worker (streaming and not), the
 * Cloudflare Agents SDK in its own `wrangler dev` (streaming and not) and pi-agent-core in plain Node, each
 * with sessions seeded to the same history (10 and 1,000 messages) and the same benchEcho tool. The step is
 * what the bench LLM's timing taps record: a tool-call reply's last byte → the session's next request.
 * Runs of all runtimes and sizes are interleaved, in an order that rotates each round, so machine noise
 * falls on all alike. A peer that cannot start is reported with its reason, never silently dropped.
 */
import type { BenchLlm } from "../../scripts/bench/bench-llm.ts";
import { startAgentsSdk } from "./agents-sdk-driver.ts";
import { OURS, startOurs } from "./ours-driver.ts";
import { startPiAgent } from "./pi-driver.ts";
import type { PeerRuntime, StartedRuntime, StepMode } from "./runtime.ts";
import { measureStepCells, type StepAtSize, type StepCell } from "../../scripts/bench/measure-step.ts";
import type { Headline } from "../../scripts/bench/stats.ts";

export type PeerComparisonOptions = { sizes: number[]; sessionsPerCell: number; stepsPerRun: number; warmupSteps: number };

export type RuntimeSteps = {
  runtime: string;
  mode: StepMode;
  bySize: StepAtSize[];
};

/** Ours ÷ the peer's, in the same mode and at the same size: below 1 means our step is faster. */
export type PeerRatio = { peer: string; mode: StepMode; history: number; ratioP50: number; ratioP95: number };

export type PeerComparisonResult = {
  options: PeerComparisonOptions;
  runtimes: RuntimeSteps[];
  ratios: PeerRatio[];
  /** Runtimes that could not be started here, and why. */
  unavailable: { runtime: string; reason: string }[];
};

type Log = (message: string) => void;

const tagLabel = (r: PeerRuntime, size: number) => `cmp-${r.name.replace(/\W+/g, "")}-${r.mode}-${size}`;

/** Starts every runtime, measures them interleaved, stops everything it started. */
export async function runPeerComparison(
  copyDir: string,
  llm: BenchLlm,
  options: PeerComparisonOptions,
  log: Log,
): Promise<PeerComparisonResult> {
  const started: StartedRuntime[] = [];
  const unavailable: PeerComparisonResult["unavailable"] = [];
  const starters: [string, () => Promise<StartedRuntime>][] = [
    [OURS, () => startOurs(copyDir, llm.url)],
    ["Agents SDK", () => startAgentsSdk(llm.url)],
    ["pi-agent-core", () => startPiAgent(llm.url)],
  ];
  try {
    for (const [name, start] of starters) {
      try {
        started.push(await start());
      } catch (err) {
        if (name === OURS) throw err;
        const reason = err instanceof Error ? err.message.split("\n")[0]! : String(err);
        log(`${name} could not start: ${reason}`);
        unavailable.push({ runtime: name, reason });
      }
    }
    const runtimes = started.flatMap((s) => s.runtimes);
    return { ...(await measurePeers(runtimes, llm, options, log)), unavailable };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}

export async function measurePeers(
  runtimes: PeerRuntime[],
  llm: BenchLlm,
  options: PeerComparisonOptions,
  log: Log = () => {},
): Promise<Omit<PeerComparisonResult, "unavailable">> {
  const { sizes, sessionsPerCell, stepsPerRun, warmupSteps } = options;
  for (const runtime of runtimes) {
    // Every path once before measuring, so each runtime meets warm code (JIT, lazy imports, pools).
    const warm = await runtime.seed(sizes[0]!, `${tagLabel(runtime, 0)}-warm`);
    await warm.turn(`steps ${warmupSteps}`);
  }
  const cells = runtimes.flatMap((runtime) =>
    sizes.map((size): StepCell => ({ size, seed: () => runtime.seed(size, tagLabel(runtime, size)) })),
  );
  log(`measuring ${cells.length} cells × ${sessionsPerCell} sessions`);
  const measured = await measureStepCells(cells, llm, { sessionsPerCell: sessionsPerCell, stepsPerRun });
  const results: RuntimeSteps[] = runtimes.map((runtime, r) => ({
    runtime: runtime.name,
    mode: runtime.mode,
    bySize: measured.slice(r * sizes.length, (r + 1) * sizes.length),
  }));
  return { options, runtimes: results, ratios: ratiosToPeers(results) };
}

function ratiosToPeers(results: readonly RuntimeSteps[]): PeerRatio[] {
  const ratios: PeerRatio[] = [];
  for (const peer of results.filter((r) => r.runtime !== OURS)) {
    // pi-ai always streams, so a peer without a mode of ours is compared with our streaming step.
    const ours = results.find((r) => r.runtime === OURS && r.mode === peer.mode);
    if (!ours) continue;
    for (const p of peer.bySize) {
      const o = ours.bySize.find((s) => s.history === p.history);
      if (o)
        ratios.push({
          peer: peer.runtime,
          mode: peer.mode,
          history: p.history,
          ratioP50: o.gapMs.p50 / p.gapMs.p50,
          ratioP95: o.gapMs.p95 / p.gapMs.p95,
        });
    }
  }
  return ratios;
}

export function peerHeadlines(result: PeerComparisonResult): Headline[] {
  const steps = result.runtimes.flatMap((r) =>
    r.bySize.flatMap((s): Headline[] => [
      { name: `vs peers: ${r.runtime} (${r.mode}) step p50, ${s.history} msgs`, value: s.gapMs.p50, unit: "ms" },
      { name: `vs peers: ${r.runtime} (${r.mode}) step p95, ${s.history} msgs`, value: s.gapMs.p95, unit: "ms" },
    ]),
  );
  const ratios = result.ratios.map(
    (r): Headline => ({ name: `vs peers: ours ÷ ${r.peer} (${r.mode}) p50, ${r.history} msgs`, value: r.ratioP50, unit: "×" }),
  );
  const missing = result.unavailable.map(
    (u): Headline => ({ name: `vs peers: ${u.runtime} not measured (${u.reason.slice(0, 80)})`, value: Number.NaN, unit: "" }),
  );
  return [...steps, ...ratios, ...missing];
}
