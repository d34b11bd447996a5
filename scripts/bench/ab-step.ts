/**
 * `npm run bench:ab -- <other checkout> [--no-stream] [--history N] [--rounds N] [--guardrails-other]`: this
 * checkout's step against another checkout's (a git worktree with its own change), on one bench LLM, measured
 * as `npm run bench` measures it (measure-step.ts): a session per side and round, one 25-step turn each, the
 * sides' order alternating, so the machine's drift falls on both alike. Prints each side's p50/p95 and the
 * ratio; for judging a change to the step before it lands, where two separate runs differ by more than the
 * change. `--guardrails-other` bundles one trivial input and one trivial output guardrail into the other
 * side: with `.`, the cost of guardrails per step, held deltas included. Both copies and their state live
 * on /dev/shm (project-copy.ts), as in production SQLite is in-process memory, not a disk that fsyncs.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { startBenchLlm } from "./bench-llm.ts";
import { benchVars, createBenchClient, createBenchSession, runTurn, streamVars } from "./driver.ts";
import { measureStepCells, ourStepCell, type StepCell } from "./measure-step.ts";
import { benchScratchRoot, createProjectCopy, type ProjectCopy } from "./project-copy.ts";

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const other = argv[0] && !argv[0].startsWith("--") ? resolve(argv[0]) : undefined;
const stream = !argv.includes("--no-stream");
const guardrailsOther = argv.includes("--guardrails-other");

async function main(): Promise<void> {
  if (!other || !existsSync(join(other, "src")))
    throw new Error("usage: npm run bench:ab -- <other checkout> [--no-stream] [--history N] [--rounds N] [--guardrails-other]");
  if (benchScratchRoot() !== "/dev/shm") process.stderr.write("bench:ab: no /dev/shm here; state on disk times its fsyncs too\n");
  const copies: ProjectCopy[] = [createProjectCopy(), createProjectCopy(other)];
  process.once("exit", () => copies.forEach((c) => c.remove()));
  const llm = await startBenchLlm();
  const devs: WranglerDev[] = [];
  try {
    const cells: StepCell[] = [];
    for (const [i, copy] of copies.entries()) {
      copy.addBenchTools();
      if (guardrailsOther && i === 1) copy.addBenchGuardrails();
      const vars = { ...benchVars(llm.url), ...streamVars(stream) };
      const dev = await startWranglerDev({ cwd: copy.dir, persistTo: join(copy.dir, ".ab-state"), vars });
      devs.push(dev);
      const client = createBenchClient(dev.url);
      const warm = await createBenchSession(client, undefined, `ab${i}`);
      // The guardrails are really on: the input check refuses its marker (the turn ends "guardrail", not an error).
      if (guardrailsOther && i === 1 && (await runTurn(warm, "FORBIDDEN-INPUT")).stopReason !== "guardrail")
        throw new Error("bench:ab: the other side's guardrails did not trip; are they bundled?");
      await runTurn(warm, "steps 25");
      cells.push(ourStepCell(client, flag("--history", 10)));
    }
    const [mine, theirs] = await measureStepCells(cells, llm, { sessionsPerCell: flag("--rounds", 20), stepsPerRun: 25 });
    const mode = `${stream ? "streaming" : "non-streaming"}, ${mine!.history} messages`;
    for (const [name, s] of [
      ["this checkout", mine!],
      [`${other}${guardrailsOther ? " (guardrails on)" : ""}`, theirs!],
    ] as const)
      process.stdout.write(`${name} (${mode}): p50 ${s.gapMs.p50.toFixed(2)} ms, p95 ${s.gapMs.p95.toFixed(2)} ms, ${s.gapMs.n} steps\n`);
    process.stdout.write(`this ÷ other: p50 ${(mine!.gapMs.p50 / theirs!.gapMs.p50).toFixed(3)}\n`);
  } finally {
    await Promise.all(devs.map((d) => d.stop()));
    await llm.close();
    copies.forEach((c) => c.remove());
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:ab failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
