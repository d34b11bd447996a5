/**
 * Token usage helpers shared by the LLM adapters. When a server reports no usage (or for the offline
 * model), usage is estimated at ~4 characters per token: good enough for budgets and dashboards,
 * never for billing.
 */
import { tokensOf, type Usage } from "../core/index.ts";

export function makeUsage(inputTokens: number, outputTokens: number): Usage {
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** `inputChars`: the length of the request's JSON text (a count, so no caller has to join the text). */
export function estimateUsage(inputChars: number, output: string): Usage {
  return makeUsage(tokensOf(inputChars), tokensOf(output.length));
}
