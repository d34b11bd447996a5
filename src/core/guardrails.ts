/**
 * Guardrails as the loop runs them: a guardrail checks text at one stage ("input": a user message before
 * any model request carries it; "output": the answer so far, before any of it leaves the run) and returns
 * `{tripwire: false}` or `{tripwire: true, reason}`. A throw or a timeout (the deployer's hook timeout)
 * trips: a guardrail fails closed. HeldDeltas holds streamed deltas until every output guardrail passed
 * the text so far; deltas that arrive while a check runs are checked together, as one text, next.
 */
import { runHook } from "./run-hook.ts";
import { describeError } from "./tool-results.ts";
import type { AgentMessage, UserMessage } from "./types.ts";

export type GuardrailStage = "input" | "output";
export type GuardrailResult = { tripwire: false } | { tripwire: true; reason: string };
/** What a check sees besides the text: its stage, the history so far, and a signal that aborts with the run or at the timeout. */
export type GuardrailContext = { stage: GuardrailStage; messages: readonly AgentMessage[]; signal: AbortSignal };
export type Guardrail = {
  name: string;
  stage: GuardrailStage;
  check: (text: string, context: GuardrailContext) => GuardrailResult | Promise<GuardrailResult>;
};
export type GuardrailTrip = { guardrail: string; stage: GuardrailStage; reason: string };

/** The text a user message carries (its text blocks, joined by newlines). */
export function userMessageText(message: UserMessage): string {
  return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}

/** Runs every guardrail (together) on `text`; the first trip in list order, or undefined when all passed. */
export async function checkGuardrails(
  guardrails: readonly Guardrail[],
  text: string,
  stage: GuardrailStage,
  messages: readonly AgentMessage[],
  timeoutMs: number | undefined,
  signal?: AbortSignal,
): Promise<GuardrailTrip | undefined> {
  if (guardrails.length === 0) return undefined;
  const verdicts = await Promise.all(
    guardrails.map(async (guardrail): Promise<GuardrailTrip | undefined> => {
      try {
        const result = await runHook(
          `guardrail ${guardrail.name}`,
          (hookSignal) => guardrail.check(text, { stage, messages, signal: hookSignal }),
          timeoutMs,
          signal,
        );
        if (result && typeof result === "object" && result.tripwire === false) return undefined;
        const reason = result && typeof result === "object" && result.tripwire === true ? String(result.reason ?? "") : "";
        return { guardrail: guardrail.name, stage, reason: reason || `returned ${describeError(result)} instead of {tripwire}` };
      } catch (err) {
        return { guardrail: guardrail.name, stage, reason: `failed: ${describeError(err)}` };
      }
    }),
  );
  return verdicts.find((v) => v !== undefined);
}

/**
 * Deltas of one model call, each released only once the output guardrails passed all text up to it.
 * After a trip nothing more is released. `settled()` resolves when every delta pushed so far was decided.
 */
export class HeldDeltas {
  private text = "";
  private checked = 0;
  private pending: string[] = [];
  private running: Promise<void> | undefined;
  private trip: GuardrailTrip | undefined;
  /** Whether any delta was released (a client may hold part of this answer). */
  released = false;

  constructor(
    private readonly check: (text: string) => Promise<GuardrailTrip | undefined>,
    private readonly release: (text: string) => void,
    private readonly onTrip: (trip: GuardrailTrip) => void,
  ) {}

  get tripped(): GuardrailTrip | undefined {
    return this.trip;
  }

  /** The text every guardrail has passed so far. */
  get passedText(): string {
    return this.text.slice(0, this.checked);
  }

  push(delta: string): void {
    if (this.trip) return;
    this.text += delta;
    this.pending.push(delta);
    this.running ??= this.drain();
  }

  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0 && !this.trip) {
      const batch = this.pending;
      this.pending = [];
      const upTo = this.text.length;
      const trip = await this.check(this.text);
      if (trip) {
        this.trip = trip;
        this.onTrip(trip);
        break;
      }
      this.checked = upTo;
      this.released = true;
      for (const delta of batch) this.release(delta);
    }
    this.running = undefined;
  }
}
