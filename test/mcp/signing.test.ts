import { describe, expect, it } from "vitest";
import { seal, signingSecretOf, unseal } from "../../src/mcp/signing.ts";

const SECRET = "signing-test-secret-0123456789abcdef";

describe("sealing what /mcp must recognise as its own", () => {
  it("opens what it sealed, for the same purpose and secret only", async () => {
    const token = await seal(SECRET, "mcp-session", { capabilities: { elicitation: {} }, nonce: "n1" });
    expect(await unseal(SECRET, "mcp-session", token)).toEqual({ capabilities: { elicitation: {} }, nonce: "n1" });
    expect(await unseal(SECRET, "mcp-request-state", token)).toBeUndefined();
    expect(await unseal(`${SECRET}x`, "mcp-session", token)).toBeUndefined();
  });

  it("refuses a token whose payload or mac was changed", async () => {
    const token = await seal(SECRET, "p", { tool: "a" });
    const [payload, mac] = token.split(".");
    const other = (await seal(SECRET, "p", { tool: "b" })).split(".")[0];
    expect(await unseal(SECRET, "p", `${other}.${mac}`)).toBeUndefined();
    expect(await unseal(SECRET, "p", `${payload}.${mac!.slice(0, -2)}AA`)).toBeUndefined();
    for (const junk of ["", ".", "abc", "a.b.c", "%%.%%"]) expect(await unseal(SECRET, "p", junk)).toBeUndefined();
  });

  it("takes the deployment's SIGNING_SECRET, else one random key per isolate", () => {
    expect(signingSecretOf({ SIGNING_SECRET: SECRET })).toBe(SECRET);
    const fallback = signingSecretOf({});
    expect(fallback).toMatch(/^[0-9a-f]{64}$/);
    expect(signingSecretOf({ SIGNING_SECRET: "  " })).toBe(fallback);
  });
});
