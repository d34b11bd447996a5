/**
 * The deployment's guardrails: the build-time generated registry (guardrails/*.ts), plus modules a host
 * adds before serving (the test Worker adds fixtures this way). Built on first use (a session's first run),
 * never at start-up. A file that failed to load under `npm start` (the generator keeps serving then)
 * becomes an input guardrail that refuses every message, naming the file: a missing guardrail is a hole.
 */
import type { Guardrail } from "../core/index.ts";
import type { GuardrailFileRegistry } from "./define-guardrail.ts";
import { brokenGuardrails, guardrailRegistry } from "./registry.generated.ts";

export type Guardrails = { input: Guardrail[]; output: Guardrail[] };

const extraModules: GuardrailFileRegistry = {};
let loaded: Guardrails | undefined;

export function addGuardrailModules(modules: GuardrailFileRegistry): void {
  Object.assign(extraModules, modules);
  loaded = undefined;
}

/** Every guardrail by stage, each file's getGuardrail() called once. */
export function deploymentGuardrails(): Guardrails {
  if (loaded) return loaded;
  const all: Guardrails = { input: [], output: [] };
  const modules: GuardrailFileRegistry = { ...(guardrailRegistry as GuardrailFileRegistry), ...extraModules };
  for (const [file, module] of Object.entries(modules)) {
    let guardrail: Guardrail;
    try {
      guardrail = module.getGuardrail();
    } catch (err) {
      all.input.push(refuseAll(`guardrails/${file}.ts`, err instanceof Error ? err.message : String(err)));
      continue;
    }
    all[guardrail.stage].push(guardrail);
  }
  for (const { file, problem } of brokenGuardrails as readonly { file: string; problem: string }[])
    all.input.push(refuseAll(file, problem));
  loaded = all;
  return all;
}

function refuseAll(file: string, problem: string): Guardrail {
  const reason = `the guardrail file ${file} failed to load (${problem}); every message is refused until it is fixed`;
  return { name: file, stage: "input", check: () => ({ tripwire: true, reason }) };
}
