/**
 * Starts the step's floor (floor/worker.ts) in its own `wrangler dev`, with its state in memory as ours is
 * (project-copy.ts), and replays a request body through it to the bench LLM.
 * Invariant: `stop()` ends the wrangler dev it started; a replay the Worker could not complete throws.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startWranglerDev } from "../../support/wrangler-dev.ts";
import { benchScratchRoot } from "./project-copy.ts";

const WORKER_DIR = join(dirname(fileURLToPath(import.meta.url)), "floor");

export type FloorWorker = {
  /** Sends `body` to the bench LLM's chat completions `count` times in a row, one after the other. */
  replay(body: string, count: number): Promise<void>;
  stop(): Promise<void>;
};

export async function startFloorWorker(llmUrl: string): Promise<FloorWorker> {
  const dev = await startWranglerDev({ cwd: WORKER_DIR, config: join(WORKER_DIR, "wrangler.jsonc"), scratchRoot: benchScratchRoot() });
  const target = encodeURIComponent(`${llmUrl}/chat/completions`);
  return {
    async replay(body, count) {
      const res = await fetch(`${dev.url}/replay?target=${target}&count=${count}`, { method: "POST", body });
      if (!res.ok) throw new Error(`floor Worker: replay answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
    },
    stop: () => dev.stop(),
  };
}
