/**
 * Drives the Agents SDK peer (agents-sdk/worker.ts) for the step comparison: starts its own `wrangler dev`
 * with the bench LLM as its OpenAI base URL, seeds each session's message store directly with the canonical
 * history (as AI SDK UI messages) and runs turns over HTTP, streaming or not per turn.
 * Invariant: `stop()` ends the wrangler dev it started; a turn whose status is not "completed" throws.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startWranglerDev } from "../../support/wrangler-dev.ts";
import { benchScratchRoot } from "../../scripts/bench/project-copy.ts";
import { readMeterOver, type MeteredRuntime } from "../../scripts/bench/measure-cost.ts";
import type { TurnResult } from "./agents-sdk/worker.ts";
import { newTag, type PeerRuntime, type StartedRuntime, type StepMode } from "./runtime.ts";
import { seedHistory, toUiMessages } from "./seed-history.ts";

const WORKER_DIR = join(dirname(fileURLToPath(import.meta.url)), "agents-sdk");

/** The Agents SDK Worker built with the meter (METER=true), streaming turns, for the cost measure. */
export async function startMeteredAgentsSdk(llmUrl: string): Promise<MeteredRuntime & { stop(): Promise<void> }> {
  const { dev, runtimes } = await startDev(llmUrl, "bench-model", { METER: "true" });
  const streaming = runtimes[0]!;
  return {
    name: "Agents SDK",
    processGroup: dev.processGroup,
    seed: (size) => streaming.seed(size, "cost"),
    meter: (reset) => readMeterOver(dev.url, reset),
    stop: () => dev.stop(),
  };
}

export async function startAgentsSdk(llmUrl: string, model = "bench-model"): Promise<StartedRuntime> {
  const { dev, runtimes } = await startDev(llmUrl, model);
  return { runtimes, stop: () => dev.stop() };
}

async function startDev(llmUrl: string, model: string, more: Record<string, string> = {}) {
  // Its state where ours is (project-copy.ts: memory, not disk), so both Workers runtimes commit alike.
  const dev = await startWranglerDev({
    cwd: WORKER_DIR,
    config: join(WORKER_DIR, "wrangler.jsonc"),
    scratchRoot: benchScratchRoot(),
    vars: { OPENAI_BASE_URL: llmUrl, OPENAI_MODEL: model, ...more },
  });
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${dev.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`Agents SDK peer: POST ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  };
  const runtime = (mode: StepMode): PeerRuntime => ({
    name: "Agents SDK",
    mode,
    async seed(size, label) {
      const tag = newTag(label);
      const path = encodeURIComponent(tag);
      const { messages } = await post<{ messages: number }>(`/seed/${path}`, { messages: toUiMessages(seedHistory(size), tag) });
      if (messages === 0) throw new Error(`Agents SDK peer: seeding ${tag} stored no messages`);
      return {
        tag,
        async turn(command) {
          const result = await post<TurnResult>(`/turn/${path}`, { command, streaming: mode === "streaming" });
          if (result.status !== "completed")
            throw new Error(`Agents SDK peer: turn "${command}" of ${tag} ended ${result.status}: ${result.error ?? ""}`);
        },
      };
    },
  });
  return { dev, runtimes: [runtime("streaming"), runtime("non-streaming")] };
}
