/**
 * Token usage helpers shared by the LLM adapters. When a server reports no usage (or for the offline
 * model), usage is estimated at ~4 characters per token: good enough for budgets and dashboards,
 * never for billing.
 */
import type { Usage } from "../core/types.ts";

const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function makeUsage(inputTokens: number, outputTokens: number): Usage {
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** `inputChars`: the length of the request's JSON text (a count, so no caller has to join the text). */
export function estimateUsage(inputChars: number, output: string): Usage {
  return makeUsage(Math.ceil(inputChars / CHARS_PER_TOKEN), estimateTokens(output));
}
