/**
 * What holding deltas for output guardrails costs per delta (docs/benchmarks.md), in process: the core's
 * HeldDeltas with one trivial check (a substring test) against passing each delta straight on, over answers
 * of 500 deltas, each delta checked on its own (the worst case; deltas arriving during a check are checked
 * together). Called by run.ts.
 */
import { checkGuardrails, type Guardrail, HeldDeltas } from "../../src/core/index.ts";

const DELTAS = 20_000;
/** Deltas in one answer (~2,500 characters): a check reads the whole answer so far. */
const ANSWER = 500;
const ROUNDS = 5;

const trivial: Guardrail = {
  name: "trivial",
  stage: "output",
  check: (text) => (text.includes("FORBIDDEN") ? { tripwire: true, reason: "forbidden" } : { tripwire: false }),
};

/** Milliseconds per delta, each held and checked (`held`) or passed straight on. */
async function perDelta(held: boolean): Promise<number> {
  let released = 0;
  let deltas: HeldDeltas | undefined;
  const t0 = performance.now();
  for (let i = 0; i < DELTAS; i++) {
    if (!held) {
      released++;
      await Promise.resolve();
      continue;
    }
    if (i % ANSWER === 0)
      deltas = new HeldDeltas(
        (text) => checkGuardrails([trivial], text, "output", [], 30_000),
        () => void released++,
        () => {},
      );
    deltas!.push("word ");
    await deltas!.settled();
  }
  if (released !== DELTAS) throw new Error(`released ${released} of ${DELTAS}`);
  return (performance.now() - t0) / DELTAS;
}

/** Microseconds a held delta adds over one passed straight on: the median of ROUNDS rounds. */
export async function measureHeldDeltas(): Promise<{ addedUsPerDelta: number }> {
  const added: number[] = [];
  for (let round = 0; round < ROUNDS; round++) added.push(((await perDelta(true)) - (await perDelta(false))) * 1000);
  return { addedUsPerDelta: added.sort((x, y) => x - y)[Math.floor(ROUNDS / 2)]! };
}
