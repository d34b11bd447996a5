/**
 * Sub-agents that exist only in the sub-agent test Worker (sub-agent-worker.ts): `helper` (a few fixture
 * tools, a step limit), `deep` (may call itself, to test MAX_SUBAGENT_DEPTH), `misnamed` (names a tool the
 * registry lacks) and `generalist` (the default tool set: every tool but sub-agents). Their children are scripted through the task text's
 * `[script:<id>]` marker (the system prompts carry none).
 */
import type { ToolRegistry } from "../../src/core/index.ts";
import { defineSubAgent } from "../../src/tools/define-tool.ts";

export const subAgentFixtures: ToolRegistry = {
  helper: {
    getTool: () =>
      defineSubAgent({
        name: "helper",
        description: "Delegates a task to a helper agent.",
        systemPrompt: "You are the helper sub-agent.",
        tools: ["slowEcho", "countedWork", "getTime"],
        maxSteps: 4,
      }),
  },
  deep: {
    getTool: () =>
      defineSubAgent({
        name: "deep",
        description: "A sub-agent that may delegate again.",
        systemPrompt: "You are a nesting sub-agent.",
        tools: ["deep", "slowEcho"],
      }),
  },
  misnamed: {
    getTool: () =>
      defineSubAgent({
        name: "misnamed",
        description: "A sub-agent naming a tool that does not exist.",
        systemPrompt: "Unused.",
        tools: ["slowEcho", "noSuchTool"],
      }),
  },
  generalist: {
    getTool: () =>
      defineSubAgent({
        name: "generalist",
        label: "Generalist",
        description: "A sub-agent with the default tools.",
        systemPrompt: "You are a generalist sub-agent.",
      }),
  },
};
