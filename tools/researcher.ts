/**
 * researcher: a sub-agent. Its call runs a child session (its own system prompt, the time and weather
 * tools, a short step limit) on the task the model hands it, and answers with the child's final text.
 * Loaded through the generated registry like any tool; the child's work streams into the parent's events.
 * With the offline model, ask e.g. `researcher task="what time is it in Tokyo"`.
 */
import { defineSubAgent } from "../src/tools/define-tool.ts";
import type { AgentTool } from "../src/core/types.ts";

export function getTool(): AgentTool {
  return defineSubAgent({
    name: "researcher",
    label: "Researcher",
    description:
      "Delegate a self-contained question to a research assistant that can look up the time and the weather. " +
      "Give it the whole task in `task`; it answers with a short report.",
    systemPrompt:
      "You are a careful research assistant. Use your tools to find facts, then answer the task in a few sentences. " +
      "Say which tool each fact came from.",
    tools: ["getTime", "getWeather"],
    maxSteps: 8,
  });
}
