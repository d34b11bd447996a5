/**
 * Maps what the AI binding threw to an LlmError. The binding reports failures as errors whose message
 * carries Workers AI's internal code ("3040: Capacity temporarily exceeded, please try again."); the code
 * decides whether another attempt can help. Our own timeout and the caller's abort are told apart by the
 * attempt's flags. Used by workers-ai-model.ts.
 */
import type { AttemptState } from "./attempt-guard.ts";
import { CONTEXT_OVERFLOW_CODE } from "../core/index.ts";
import { abortedError, LlmError } from "./llm-error.ts";

/** Workers AI's "estimated number of input and maximum output tokens exceeded this model context window limit". */
const CONTEXT_WINDOW_CODE = 5021;
/** Codes from Workers AI's error table worth another attempt: out of capacity, timeouts. */
const RETRYABLE_CODES = new Set([3040, 3007, 3008]);
/** The HTTP status Workers AI documents for a code, so messages read like the OpenAI adapter's. */
const STATUS_BY_CODE: Record<number, number> = {
  3003: 400,
  3006: 413,
  3007: 408,
  3008: 408,
  3023: 403,
  3036: 429,
  3040: 429,
  3041: 403,
  3042: 404,
  4006: 429,
  5004: 400,
  5005: 405,
  5006: 400,
  5007: 400,
  5016: 403,
  5018: 403,
  5019: 405,
  5021: 400,
};

export function toWorkersAiError(err: unknown, attempt: AttemptState): LlmError {
  if (err instanceof LlmError) return err;
  if (attempt.aborted) return abortedError(err);
  if (attempt.timedOut) {
    return new LlmError(`Workers AI timed out: no response data for ${attempt.timeoutMs} ms`, {
      kind: "timeout",
      retryable: true,
      cause: err,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  // `wrangler dev --local` has no remote proxy for the binding: every attempt fails alike, so never retried.
  if (/needs to be run remotely/.test(message)) {
    const fix =
      "locally, set MODEL_PROVIDER in .dev.vars (offline, or openai with OPENAI_API_KEY), or `npx wrangler login` and `npm run dev:remote`";
    return new LlmError(`Workers AI does not run under \`npm start\` (${message}): ${fix}`, {
      kind: "config",
      retryable: false,
      cause: err,
    });
  }
  const code = Number(/\b([345]\d{3}):/.exec(message)?.[1]);
  if (Number.isInteger(code) && code > 0) {
    const status = STATUS_BY_CODE[code];
    return new LlmError(`Workers AI request failed${status ? ` with HTTP ${status}` : ""}: ${message}`, {
      kind: "http",
      retryable: RETRYABLE_CODES.has(code),
      ...(status === undefined ? {} : { status }),
      // The request (with room for the answer) is longer than the model's window: the session compacts.
      ...(code === CONTEXT_WINDOW_CODE ? { code: CONTEXT_OVERFLOW_CODE } : {}),
      cause: err,
    });
  }
  // No code: the connection to the model dropped or the platform failed internally; both may pass.
  return new LlmError(`Workers AI connection failed: ${message}`, { kind: "network", retryable: true, cause: err });
}
