/**
 * The peers package's entry, loaded by scripts/bench/peers-package.ts when `npm run bench -- --peers` asks
 * for it: the step comparison (measure-peers.ts), then the Agents SDK Worker's start-up CPU and bundle,
 * measured as ours are (scripts/bench/measure-startup.ts). A peer that cannot start is reported, not dropped.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureStartup } from "../../scripts/bench/measure-startup.ts";
import type { PeersEntry } from "../../scripts/bench/peers-package.ts";
import { peerHeadlines, runPeerComparison } from "./measure-peers.ts";

const AGENTS_SDK_DIR = join(dirname(fileURLToPath(import.meta.url)), "agents-sdk");

export const runPeers: PeersEntry["runPeers"] = async (copyDir, llm, plan, log) => {
  const { startupRuns, ...options } = plan;
  const comparison = await runPeerComparison(copyDir, llm, options, log);
  try {
    const agentsSdkStartup = await measureStartup(AGENTS_SDK_DIR, startupRuns, join(AGENTS_SDK_DIR, "wrangler.jsonc"));
    return { headlines: peerHeadlines(comparison), details: { ...comparison, agentsSdkStartup }, agentsSdkStartup };
  } catch (err) {
    const reason = err instanceof Error ? err.message.split("\n")[0]! : String(err);
    log(`Agents SDK start-up not measured: ${reason}`);
    return {
      headlines: [
        ...peerHeadlines(comparison),
        { name: `start-up CPU: Agents SDK not measured (${reason.slice(0, 80)})`, value: Number.NaN, unit: "" },
      ],
      details: comparison,
    };
  }
};
