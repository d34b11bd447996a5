/**
 * vitest globalSetup for the workerd project: starts the scripted mock LLM on 127.0.0.1 and hands its
 * URLs to the Worker's bindings (see vitest.config.ts) and to tests (`inject("controlUrl")`).
 */
import type { TestProject } from "vitest/node";
import { startMarkerServer } from "./marker-server.ts";
import { startScriptedLlm } from "./scripted-llm.ts";

declare module "vitest" {
  export interface ProvidedContext {
    llmUrl: string;
    controlUrl: string;
    /** The attack corpus's request catcher (test/support/marker-server.ts). */
    markerUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const llm = await startScriptedLlm();
  project.provide("llmUrl", llm.llmUrl);
  project.provide("controlUrl", llm.controlUrl);
  const marker = await startMarkerServer();
  project.provide("markerUrl", marker.url);
  return async () => {
    await marker.close();
    await llm.close();
  };
}
