/**
 * vitest globalSetup for the workerd project: starts the scripted mock LLM on 127.0.0.1 and hands its
 * URLs to the Worker's bindings (see vitest.config.ts) and to tests (`inject("controlUrl")`).
 */
import type { TestProject } from "vitest/node";
import { startScriptedLlm } from "./scripted-llm.ts";

declare module "vitest" {
  export interface ProvidedContext {
    llmUrl: string;
    controlUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const llm = await startScriptedLlm();
  project.provide("llmUrl", llm.llmUrl);
  project.provide("controlUrl", llm.controlUrl);
  return () => llm.close();
}
