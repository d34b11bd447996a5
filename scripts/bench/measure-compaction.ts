/**
 * Compaction (docs/compaction.md): a 200-turn conversation against the zero-latency bench LLM on a model
 * whose window MODEL_CONTEXT_WINDOWS makes small (BENCH_SMALL_WINDOW tokens), each turn two benchEcho steps.
 * Reports how many compactions it made, the largest request body (its estimate, a quarter of its bytes,
 * must stay under the window), and the step's gap on a step that compacted (its summary call left out,
 * bench-llm.ts) against the steps that did not, as a ratio. Called by run.ts.
 */
import type { AgentClient } from "../../src/client/index.ts";
import { systemPromptFor, type BenchLlm } from "./bench-llm.ts";
import { BENCH_SMALL_MODEL, BENCH_SMALL_WINDOW, runTurn } from "./driver.ts";
import { summarize, type Headline } from "./stats.ts";

export async function measureCompaction(client: AgentClient, llm: BenchLlm, turns: number) {
  const tag = `compact-${crypto.randomUUID().slice(0, 8)}`;
  const handle = await client.createSession({ systemPrompt: systemPromptFor(tag), tools: ["benchEcho"], model: BENCH_SMALL_MODEL });
  const session = { handle, tag };
  for (let i = 0; i < turns; i++) await runTurn(session, "steps 2");
  const gaps = llm.gaps.filter((g) => g.tag === tag);
  const compacting = gaps.filter((g) => g.summaryMs !== undefined).map((g) => g.gapMs);
  const plain = gaps.filter((g) => g.summaryMs === undefined).map((g) => g.gapMs);
  const compactions = llm.summaries.filter((s) => s.tag === tag).length;
  const snapshot = await handle.snapshot();
  if (compactions === 0 || !snapshot.contextSummary) throw new Error(`no compaction in ${turns} turns`);
  const largestRequestBytes = llm.largestRequest.get(tag) ?? 0;
  const [compactingStepMs, plainStepMs] = [summarize(compacting), summarize(plain)];
  const ratioP50 = compactingStepMs.p50 / plainStepMs.p50;
  const headlines: Headline[] = [
    { name: `compactions in a ${turns}-turn conversation (window ${BENCH_SMALL_WINDOW} tokens)`, value: compactions, unit: "" },
    // The estimate a request is held to is a quarter of its bytes: it must stay under the window.
    {
      name: "largest request ÷ window (bytes/4 ÷ tokens)",
      value: largestRequestBytes / 4 / BENCH_SMALL_WINDOW,
      unit: "×",
      target: { op: "<=", value: 1 },
    },
    { name: `step that compacts, summary call aside, p50 (${compactingStepMs.n} steps)`, value: compactingStepMs.p50, unit: "ms" },
    { name: "step that compacts ÷ step that does not, p50", value: ratioP50, unit: "×" },
  ];
  return { turns, compactions, largestRequestBytes, compactingStepMs, plainStepMs, ratioP50, headlines };
}
