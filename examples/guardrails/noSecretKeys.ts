/**
 * noSecretKeys: an output guardrail that refuses an answer containing what looks like a secret key (an
 * OpenAI, Anthropic, GitHub, Slack, Stripe or AWS key, a private key block, a JWT). It sees the answer as
 * it streams, so a key is stopped before any of its text reaches a client.
 * Not bundled here: copy it into `guardrails/` to turn it on (`cp examples/guardrails/noSecretKeys.ts guardrails/`).
 */
import { defineGuardrail } from "../src/guardrails/define-guardrail.ts";

const SECRET_PATTERNS: readonly [string, RegExp][] = [
  ["an OpenAI or Anthropic API key", /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/],
  ["a GitHub token", /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{40,}/],
  ["a Slack token", /\bxox[abprs]-[A-Za-z0-9-]{10,}/],
  ["a Stripe secret key", /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}/],
  ["an AWS access key id", /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/],
  ["a private key", /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/],
  ["a JSON Web Token", /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/],
];

export function getGuardrail() {
  return defineGuardrail({
    name: "noSecretKeys",
    stage: "output",
    check: (text) => {
      for (const [what, pattern] of SECRET_PATTERNS) {
        if (pattern.test(text)) return { tripwire: true, reason: `the answer contains what looks like ${what}` };
      }
      return { tripwire: false };
    },
  });
}
