/**
 * This Worker as one runtime of the step comparison: two `wrangler dev` of the bench's project copy (bench
 * tools included), one streaming and one with LLM_STREAM=false, driven through the client SDK like
 * the rest of the bench. Sessions are seeded through the API with `seed N`, which the bench LLM answers
 * with exactly the canonical history the peers are seeded with (seed-history.ts builds it the same way).
 * Invariant: `stop()` ends both servers; their state lives in the copy and goes with it.
 */
import { join } from "node:path";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { benchVars, createBenchClient, createBenchSession, runTurn, streamVars } from "../../scripts/bench/driver.ts";
import type { PeerRuntime, StartedRuntime, StepMode } from "./runtime.ts";

export const OURS = "this Worker";

export async function startOurs(copyDir: string, llmUrl: string): Promise<StartedRuntime> {
  const devs: WranglerDev[] = [];
  const stop = async () => void (await Promise.all(devs.map((d) => d.stop())));
  const start = async (mode: StepMode): Promise<PeerRuntime> => {
    const dev = await startWranglerDev({
      cwd: copyDir,
      persistTo: join(copyDir, `.bench-state-peers-${mode}`),
      vars: { ...benchVars(llmUrl), ...streamVars(mode === "streaming") },
    });
    devs.push(dev);
    const client = createBenchClient(dev.url);
    return {
      name: OURS,
      mode,
      async seed(size, label) {
        const session = await createBenchSession(client, undefined, label);
        await runTurn(session, `seed ${size}`);
        return { tag: session.tag, turn: async (command) => void (await runTurn(session, command)) };
      },
    };
  };
  try {
    // One after the other: each start runs the project's build step in the same copy.
    const streaming = await start("streaming");
    const nonStreaming = await start("non-streaming");
    return { runtimes: [streaming, nonStreaming], stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
