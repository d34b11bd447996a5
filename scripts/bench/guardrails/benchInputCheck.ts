/** A trivial input guardrail for `npm run bench:ab -- . --guardrails-other`: what a guardrail's plumbing costs, not its check. */
import { defineGuardrail } from "../../../src/guardrails/define-guardrail.ts";

export function getGuardrail() {
  return defineGuardrail({
    name: "benchInputCheck",
    stage: "input",
    check: (text) => (text.includes("FORBIDDEN-INPUT") ? { tripwire: true, reason: "forbidden input" } : { tripwire: false }),
  });
}
