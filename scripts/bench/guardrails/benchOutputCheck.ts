/** A trivial output guardrail for `npm run bench:ab -- . --guardrails-other`: what holding each delta costs, not its check. */
import { defineGuardrail } from "../../../src/guardrails/define-guardrail.ts";

export function getGuardrail() {
  return defineGuardrail({
    name: "benchOutputCheck",
    stage: "output",
    check: (text) => (text.includes("FORBIDDEN-OUTPUT") ? { tripwire: true, reason: "forbidden output" } : { tripwire: false }),
  });
}
