/**
 * What sub-agents add to the core's vocabulary, merged into its declarations from here: the "subAgent"
 * tool capability and its context field, and the request a sub-agent tool hands its host. Types only,
 * importing only the core, so every program that reads those unions can load it (src/host-vocabulary.ts).
 */
import type { AgentToolResult, OnPartialResult } from "../../core/index.ts";

declare module "../../core/types.ts" {
  interface ToolCapabilities {
    subAgent: "runSubAgent";
  }
  interface ToolExecutionContext {
    /** Capability "subAgent": runs a child session for a sub-agent call (sub-agent-calls.ts). */
    runSubAgent?: RunSubAgent;
  }
}

/** What a sub-agent tool (defineSubAgent) asks its host to run: a child session for one task. */
export type SubAgentRequest = {
  /** The call's id as the runtime assigned it (with the host's session and run, it names the child). */
  toolCallId: string;
  task: string;
  /** The sub-agent's name (its tool name), for messages and the child's settings. */
  name: string;
  systemPrompt: string;
  /** Registry tool names the child may use; undefined: every tool but sub-agents. */
  tools?: readonly string[];
  model?: string;
  maxSteps?: number;
};

/** Runs (or re-attaches to) the child session of one sub-agent call; rejects with a readable Error when it cannot (the pipeline makes it an error result). */
export type RunSubAgent = (request: SubAgentRequest, onPartialResult: OnPartialResult, signal?: AbortSignal) => Promise<AgentToolResult>;
