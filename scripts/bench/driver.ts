/**
 * How the benchmark drives the Worker: through the project's own client SDK only (HTTP + SSE). Creates
 * tagged sessions (the tag rides in the system prompt, so the bench LLM can tell sessions apart) and runs
 * one command turn: send, then long-poll takeResponse until the final message arrives.
 * Invariant: a turn that ends in an error stop reason or never answers throws, so errors are never silent.
 */
import { randomUUID } from "node:crypto";
import { createClient, type AgentClient, type AssistantMessage, type SessionHandle } from "../../src/client/index.ts";
import { systemPromptFor } from "./bench-llm.ts";

/** The server caps one takeResponse wait at 60 s; turns here take milliseconds, so a minute means stuck. */
const TURN_TIMEOUT_MS = 60_000;

export type BenchSession = { handle: SessionHandle; tag: string };

/** The vars every bench `wrangler dev` of this Worker gets: the bench LLM as its OpenAI-compatible model. */
export const benchVars = (llmUrl: string): Record<string, string> => ({
  OPENAI_API_KEY: "bench",
  OPENAI_BASE_URL: llmUrl,
  OPENAI_MODEL: "bench-model",
  MAX_RETRY_DELAY_MS: "20",
  // The mock reports a quarter of a request's bytes as its prompt tokens: a 1,000-message session's
  // ~63,000 would pass COMPACT_AT of the default budget and be compacted mid-measure. The step is measured
  // on whole histories; compaction has its own measure, on its own model below.
  MAX_CONTEXT_TOKENS: "128000",
  // A model with a small window, for the compaction measure (measure-compaction.ts); sessions choose it.
  MODELS: BENCH_SMALL_MODEL,
  MODEL_CONTEXT_WINDOWS: `${BENCH_SMALL_MODEL}=${BENCH_SMALL_WINDOW}`,
});

/** The model the compaction measure's sessions choose, and its window in tokens. */
export const [BENCH_SMALL_MODEL, BENCH_SMALL_WINDOW] = ["bench-small", 2_000] as const;

/** Streaming on or off; OPENAI_STREAM is its name in checkouts before LLM_STREAM, which bench:ab may compare. */
export const streamVars = (stream: boolean): Record<string, string> => ({ LLM_STREAM: String(stream), OPENAI_STREAM: String(stream) });

export const createBenchClient = (baseUrl: string): AgentClient => createClient({ baseUrl });

/** `tools` undefined: every bundled tool is offered, as in a session a user creates without a list. */
export async function createBenchSession(client: AgentClient, tools: string[] | undefined, label = "s"): Promise<BenchSession> {
  const tag = `${label}-${randomUUID().slice(0, 8)}`;
  const handle = await client.createSession({ systemPrompt: systemPromptFor(tag), ...(tools ? { tools } : {}), toolExecution: "parallel" });
  return { handle, tag };
}

/** Sends `command` and waits for the run's final message. */
export async function runTurn(session: BenchSession, command: string, timeoutMs = TURN_TIMEOUT_MS): Promise<AssistantMessage> {
  await session.handle.send(command);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`No response to "${command}" within ${timeoutMs} ms`);
    const message = await session.handle.takeResponse(Math.min(left, TURN_TIMEOUT_MS));
    if (!message) continue;
    if (message.stopReason === "error" || message.stopReason === "aborted" || message.stopReason === "max_steps") {
      throw new Error(`Turn "${command}" ended with ${message.stopReason}: ${message.errorMessage ?? ""}`);
    }
    return message;
  }
}

/** Milliseconds since an arbitrary origin, sub-millisecond (for durations measured in this process). */
export const nowMs = (): number => performance.now();
