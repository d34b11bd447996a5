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

export function estimateUsage(input: string, output: string): Usage {
  return makeUsage(estimateTokens(input), estimateTokens(output));
}
