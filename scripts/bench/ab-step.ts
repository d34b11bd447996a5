/**
 * `npm run bench:ab -- <other checkout> [--no-stream] [--history N] [--rounds N]`: this checkout's step
 * against another checkout's (a git worktree with its own change), on one bench LLM, with turns of the two
 * interleaved so the machine's drift falls on both alike. Prints each side's step p50/p95 and the ratio;
 * for judging a change to the step before it lands, where two separate runs differ by more than the change.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { startBenchLlm } from "./bench-llm.ts";
import { createBenchClient, createBenchSession, runTurn, type BenchSession } from "./driver.ts";
import { createProjectCopy, type ProjectCopy } from "./project-copy.ts";
import { waitForIdleCpus } from "./settle.ts";
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
const STEPS_PER_TURN = 25;

async function main(): Promise<void> {
  if (!other || !existsSync(join(other, "src"))) throw new Error("usage: npm run bench:ab -- <other checkout> [--no-stream] [--history N] [--rounds N]");
  const copies: ProjectCopy[] = [createProjectCopy(), createProjectCopy(other)];
  process.once("exit", () => copies.forEach((c) => c.remove()));
  const llm = await startBenchLlm();
  const devs: WranglerDev[] = [];
  try {
    const sides: { name: string; session: BenchSession }[] = [];
    for (const [i, copy] of copies.entries()) {
      copy.addBenchTools();
      const dev = await startWranglerDev({
        cwd: copy.dir,
        persistTo: join(copy.dir, ".ab-state"),
        vars: { OPENAI_API_KEY: "bench", OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "bench-model", MAX_RETRY_DELAY_MS: "20", LLM_STREAM: String(stream), OPENAI_STREAM: String(stream) /* the name an older checkout reads */ },
      });
      devs.push(dev);
      const session = await createBenchSession(createBenchClient(dev.url), ["benchEcho"], `ab${i}`);
      await runTurn(session, `seed ${history}`);
      await runTurn(session, `steps ${STEPS_PER_TURN}`); // warm
      sides.push({ name: i === 0 ? "this checkout" : other, session });
    }
    await waitForIdleCpus(); // what seeding left behind (settle.ts) is not the step's
    llm.clear();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) await runTurn(side.session, `steps ${STEPS_PER_TURN}`);
    }
    const stats = sides.map((side) => summarize(llm.gaps.filter((g) => g.tag === side.session.tag && g.command.startsWith("steps")).map((g) => g.gapMs)));
    const mode = `${stream ? "streaming" : "non-streaming"}, ${history} messages`;
    for (const [i, side] of sides.entries()) process.stdout.write(`${side.name} (${mode}): p50 ${stats[i]!.p50.toFixed(2)} ms, p95 ${stats[i]!.p95.toFixed(2)} ms, ${stats[i]!.n} steps\n`);
    process.stdout.write(`this ÷ other: p50 ${(stats[0]!.p50 / stats[1]!.p50).toFixed(3)}\n`);
    // A step that slows as the run goes on shows here: p50 by the step's place in its turn.
    for (const side of sides) {
      const gaps = llm.gaps.filter((g) => g.tag === side.session.tag && g.command.startsWith("steps")).map((g) => g.gapMs);
      const byPlace = [0, 5, 10, 15, 20].map((from) => summarize(gaps.filter((_, i) => i % STEPS_PER_TURN >= from && i % STEPS_PER_TURN < from + 5)).p50.toFixed(2));
      process.stdout.write(`${side.name}: p50 of steps 1–5, 6–10, …, 21–25 of a turn: ${byPlace.join(" ")} ms\n`);
    }
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
