/**
 * The default context policy's cost per step, in-process (no Worker): budgetContext + formatMsgForLLM on
 * histories of 2,000, 10,000 and 50,000 messages, each over the budget, with caches warm as in a live
 * session. The ratio p50(50,000) ÷ p50(2,000) shows whether a step's cost grows with history (target ≤ 1.3).
 * Called by run.ts; prints its own line, since it needs no wrangler dev.
 */
import { budgetContext, formatMsgForLLM, type AgentMessage, type AgentState } from "../../src/core/index.ts";
import { nowMs } from "./driver.ts";
import { summarize, type Summary } from "./stats.ts";

export type ContextPolicyResult = { bySize: { history: number; stepUs: Summary; sentMessages: number }[]; ratio: number };

const SIZES = [2_000, 10_000, 50_000];
const STEPS = 500;

function history(messages: number): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let t = 0; out.length < messages; t++) {
    const id = `call_${String(t).padStart(8, "0")}`;
    out.push(
      { role: "user", content: [{ type: "text", text: `Question ${t}: ${"q".repeat(300)}` }], timestamp: t },
      { role: "assistant", content: [{ type: "toolCall", id, name: "getWeather", arguments: { city: "Berlin" } }], stopReason: "toolUse", timestamp: t },
      { role: "toolResult", toolCallId: id, toolName: "getWeather", content: [{ type: "text", text: `Result ${t}: ${"r".repeat(600)}` }], details: {}, isError: false, timestamp: t },
      { role: "assistant", content: [{ type: "text", text: `Answer ${t}: ${"a".repeat(300)}` }], stopReason: "stop", timestamp: t },
    );
  }
  return out.slice(0, messages);
}

export function measureContextPolicy(): ContextPolicyResult {
  const states = SIZES.map((size): AgentState => ({ systemPrompt: "You are a helpful assistant.", messages: history(size), tools: new Map() }));
  const sent = SIZES.map(() => 0);
  const step = (i: number) => {
    sent[i] = formatMsgForLLM(budgetContext(states[i]!)).messages.length;
  };
  for (let round = 0; round < 20; round++) states.forEach((_, i) => step(i)); // warm caches and the JIT
  // Sizes interleaved round by round, so a busy machine slows every size alike.
  const samples = SIZES.map((): number[] => []);
  for (let round = 0; round < STEPS; round++) {
    for (let i = 0; i < SIZES.length; i++) {
      const t0 = nowMs();
      step(i);
      samples[i]!.push((nowMs() - t0) * 1000);
    }
  }
  const bySize = SIZES.map((history, i) => ({ history, stepUs: summarize(samples[i]!), sentMessages: sent[i]! }));
  return { bySize, ratio: bySize.at(-1)!.stepUs.p50 / bySize[0]!.stepUs.p50 };
}

/** Measures and prints one line: p50 per history size and the ratio. */
export async function reportContextPolicy(): Promise<ContextPolicyResult> {
  const result = measureContextPolicy();
  const sizes = result.bySize.map((s) => `${s.history} msgs ${s.stepUs.p50.toFixed(1)} µs (${s.sentMessages} sent)`).join(", ");
  process.stdout.write(`context policy per step p50: ${sizes}; ratio 50,000 ÷ 2,000 = ${result.ratio.toFixed(2)} (target ≤ 1.3)\n`);
  return result;
}
