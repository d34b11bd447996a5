/**
 * `npm run bench:ab -- <other checkout> [--no-stream] [--history N] [--rounds N] [--guardrails-other]`: this checkout's step
 * against another checkout's (a git worktree with its own change), on one bench LLM, with turns of the two
 * interleaved so the machine's drift falls on both alike. Prints each side's step p50/p95 and the ratio;
 * for judging a change to the step before it lands, where two separate runs differ by more than the change.
 * `--guardrails-other` bundles one trivial
 * input and one trivial output guardrail (scripts/bench/guardrails) into the other side: with `.`, the cost
 * of guardrails per step, held deltas included.
 * Both copies and their Durable Object state live on /dev/shm (project-copy.ts), as in production SQLite
 * is in-process memory, not a disk that fsyncs every commit.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { startBenchLlm } from "./bench-llm.ts";
import { benchVars, createBenchClient, createBenchSession, runTurn, streamVars, type BenchSession } from "./driver.ts";
import { benchScratchRoot, createProjectCopy, type ProjectCopy } from "./project-copy.ts";
import { waitForIdleCpus } from "./stats.ts";
import { summarize } from "./stats.ts";

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};
const other = argv[0] && !argv[0].startsWith("--") ? resolve(argv[0]) : undefined;
const stream = !argv.includes("--no-stream");
const history = flag("--history", 10);
const rounds = flag("--rounds", 20);
const guardrailsOther = argv.includes("--guardrails-other");
const STEPS_PER_TURN = 25;

async function main(): Promise<void> {
  if (!other || !existsSync(join(other, "src")))
    throw new Error("usage: npm run bench:ab -- <other checkout> [--no-stream] [--history N] [--rounds N] [--guardrails-other]");
  if (benchScratchRoot() !== "/dev/shm") process.stderr.write("bench:ab: no /dev/shm here; state on disk times its fsyncs too\n");
  const copies: ProjectCopy[] = [createProjectCopy(), createProjectCopy(other)];
  process.once("exit", () => copies.forEach((c) => c.remove()));
  const llm = await startBenchLlm();
  const devs: WranglerDev[] = [];
  try {
    const sides: { name: string; session: BenchSession }[] = [];
    for (const [i, copy] of copies.entries()) {
      copy.addBenchTools();
      if (guardrailsOther && i === 1) copy.addBenchGuardrails();
      const dev = await startWranglerDev({
        cwd: copy.dir,
        persistTo: join(copy.dir, ".ab-state"),
        vars: { ...benchVars(llm.url), ...streamVars(stream) },
      });
      devs.push(dev);
      const session = await createBenchSession(createBenchClient(dev.url), undefined, `ab${i}`);
      // The guardrails are really on: the input check refuses its marker (the turn ends "guardrail", not an error).
      if (guardrailsOther && i === 1 && (await runTurn(session, "FORBIDDEN-INPUT")).stopReason !== "guardrail")
        throw new Error("bench:ab: the other side's guardrails did not trip; are they bundled?");
      await runTurn(session, `seed ${history}`);
      await runTurn(session, `steps ${STEPS_PER_TURN}`); // warm
      sides.push({ name: i === 0 ? "this checkout" : `${other}${guardrailsOther ? " (guardrails on)" : ""}`, session });
    }
    await waitForIdleCpus(); // what seeding left behind is not the step's
    llm.clear();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) await runTurn(side.session, `steps ${STEPS_PER_TURN}`);
    }
    const stats = sides.map((side) =>
      summarize(llm.gaps.filter((g) => g.tag === side.session.tag && g.command.startsWith("steps")).map((g) => g.gapMs)),
    );
    const mode = `${stream ? "streaming" : "non-streaming"}, ${history} messages`;
    for (const [i, side] of sides.entries())
      process.stdout.write(
        `${side.name} (${mode}): p50 ${stats[i]!.p50.toFixed(2)} ms, p95 ${stats[i]!.p95.toFixed(2)} ms, ${stats[i]!.n} steps\n`,
      );
    process.stdout.write(`this ÷ other: p50 ${(stats[0]!.p50 / stats[1]!.p50).toFixed(3)}\n`);
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
