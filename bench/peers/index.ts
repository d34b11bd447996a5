/**
 * The peers package's entry, loaded by scripts/bench/peers-package.ts when `npm run bench -- --peers` asks
 * for it: the step comparison (measure-peers.ts), then the Agents SDK Worker's cost per turn and its start-up
 * CPU and bundle, measured as ours are (scripts/bench/measure-cost.ts, measure-startup.ts). A peer that cannot start is reported, not dropped.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureStartup } from "../../scripts/bench/measure-startup.ts";
import type { PeersEntry, PeersPlan } from "../../scripts/bench/peers-package.ts";
import { measureCost } from "../../scripts/bench/measure-cost.ts";
import { startMeteredAgentsSdk } from "./agents-sdk-driver.ts";
import { peerHeadlines, runPeerComparison } from "./measure-peers.ts";

const AGENTS_SDK_DIR = join(dirname(fileURLToPath(import.meta.url)), "agents-sdk");

export const runPeers: PeersEntry["runPeers"] = async (copyDir, llm, plan, log) => {
  const { startupRuns, cost, ...options } = plan;
  const comparison = await runPeerComparison(copyDir, llm, options, log);
  const agentsSdkCost = await measureAgentsSdkCost(llm.url, cost, log);
  try {
    const agentsSdkStartup = await measureStartup(AGENTS_SDK_DIR, startupRuns, join(AGENTS_SDK_DIR, "wrangler.jsonc"));
    return {
      headlines: peerHeadlines(comparison),
      details: { ...comparison, agentsSdkStartup, agentsSdkCost },
      agentsSdkStartup,
      ...(agentsSdkCost ? { agentsSdkCost } : {}),
    };
  } catch (err) {
    const reason = err instanceof Error ? err.message.split("\n")[0]! : String(err);
    log(`Agents SDK start-up not measured: ${reason}`);
    return {
      headlines: [
        ...peerHeadlines(comparison),
        { name: `start-up CPU: Agents SDK not measured (${reason.slice(0, 80)})`, value: Number.NaN, unit: "" },
      ],
      details: { ...comparison, agentsSdkCost },
      ...(agentsSdkCost ? { agentsSdkCost } : {}),
    };
  }
};

/** The Agents SDK's cost, measured as ours is (its Worker built with the meter); undefined, and said, when it cannot start. */
async function measureAgentsSdkCost(llmUrl: string, plan: PeersPlan["cost"], log: (message: string) => void) {
  try {
    const sdk = await startMeteredAgentsSdk(llmUrl);
    try {
      return await measureCost(sdk, plan.sizes, plan.turns);
    } finally {
      await sdk.stop();
    }
  } catch (err) {
    log(`Agents SDK cost not measured: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
    return undefined;
  }
}
