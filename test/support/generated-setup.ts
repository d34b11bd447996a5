/**
 * vitest globalSetup of the node and workerd projects: on a fresh clone the generated files (the tool and
 * guardrail registries, public/client.js) do not exist yet, and tests and the Worker import them. When one
 * is missing it runs its generator once, as `npm run generate:code` would; otherwise it does nothing
 * (npm test regenerates them first).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT, runNodeScript } from "./temp-project.ts";

const GENERATED = [
  { file: "src/tools/registry.generated.ts", script: "scripts/generate-registry.ts" },
  { file: "src/guardrails/registry.generated.ts", script: "scripts/generate-guardrails.ts" },
  { file: "public/client.js", script: "scripts/build-client.ts" },
];

export default async function setup(): Promise<void> {
  for (const { file, script } of GENERATED) {
    if (!existsSync(path.join(REPO_ROOT, file))) await runNodeScript(REPO_ROOT, path.join(REPO_ROOT, script));
  }
}
