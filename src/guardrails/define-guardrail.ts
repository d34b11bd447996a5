/**
 * defineGuardrail: the guardrail author's kit. A file `guardrails/<name>.ts` exports `getGuardrail()`
 * returning `defineGuardrail({name, stage, check})`; the build bundles it through a generated registry
 * (scripts/generate-guardrails.ts), as tools are. `check(text, context)` returns (or resolves to)
 * `{tripwire: false}` or `{tripwire: true, reason}`; a throw or a timeout (the hook timeout) trips.
 * "input" guardrails see every user message before a model request carries it; "output" ones the answer
 * so far, before any of it reaches a client (src/core/guardrails.ts).
 */
import type { Guardrail, GuardrailContext, GuardrailResult, GuardrailStage } from "../core/index.ts";

export type { Guardrail, GuardrailContext, GuardrailResult, GuardrailStage };

/** What the generated registry holds: each guardrail file's module. */
export type GuardrailFileRegistry = Record<string, { getGuardrail: () => Guardrail }>;

const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** Checks the definition now (so the build names a broken file), and returns it as the loop runs it. */
export function defineGuardrail(definition: {
  name: string;
  stage: GuardrailStage;
  check: (text: string, context: GuardrailContext) => GuardrailResult | Promise<GuardrailResult>;
}): Guardrail {
  const { name, stage, check } = definition ?? {};
  if (typeof name !== "string" || !NAME_PATTERN.test(name))
    throw new Error(`guardrail name must match ${NAME_PATTERN}, not ${JSON.stringify(name)}`);
  if (stage !== "input" && stage !== "output")
    throw new Error(`guardrail "${name}": stage must be "input" or "output", not ${JSON.stringify(stage)}`);
  if (typeof check !== "function") throw new Error(`guardrail "${name}": check must be a function`);
  return { name, stage, check };
}
