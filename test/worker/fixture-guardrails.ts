/**
 * Guardrails the test Worker adds to every session. Each trips only on its own marker, so the other tests'
 * text passes them; every answer still streams through the held-delta path.
 */
import type { GuardrailFileRegistry } from "../../src/guardrails/define-guardrail.ts";
import { defineGuardrail } from "../../src/guardrails/define-guardrail.ts";

export const FORBIDDEN_INPUT = "FORBIDDEN-INPUT";
export const FORBIDDEN_OUTPUT = "FORBIDDEN-OUTPUT";
export const THROWING_INPUT = "THROWING-GUARDRAIL";

export const fixtureGuardrails: GuardrailFileRegistry = {
  blockInput: {
    getGuardrail: () =>
      defineGuardrail({
        name: "blockInput",
        stage: "input",
        check: (text) =>
          text.includes(FORBIDDEN_INPUT) ? { tripwire: true, reason: "the message asks for what we never serve" } : { tripwire: false },
      }),
  },
  throwsOnInput: {
    getGuardrail: () =>
      defineGuardrail({
        name: "throwsOnInput",
        stage: "input",
        check: async (text) => {
          if (text.includes(THROWING_INPUT)) throw new Error("the checking service is down");
          return { tripwire: false };
        },
      }),
  },
  blockOutput: {
    getGuardrail: () =>
      defineGuardrail({
        name: "blockOutput",
        stage: "output",
        // Async, as a real check (a moderation API) would be.
        check: async (text) =>
          text.includes(FORBIDDEN_OUTPUT) ? { tripwire: true, reason: "the answer contains the forbidden marker" } : { tripwire: false },
      }),
  },
};
