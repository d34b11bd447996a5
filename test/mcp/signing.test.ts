import { describe, expect, it } from "vitest";
import { seal, sealingKeyOf, unseal } from "../../src/mcp/signing.ts";
import { SigningSecretMissing } from "../../src/signing/signing-secret.ts";

const SECRET = "signing-test-secret-0123456789abcdef";
const keyOf = (secret: string) => sealingKeyOf({ SIGNING_SECRET: secret });

describe("sealing what /mcp must recognise as its own", () => {
  it("opens what it sealed, for the same purpose and secret only", async () => {
    const key = await keyOf(SECRET);
    const token = await seal(key, "mcp-session", { capabilities: { elicitation: {} }, nonce: "n1" });
    expect(await unseal(key, "mcp-session", token)).toEqual({ capabilities: { elicitation: {} }, nonce: "n1" });
    expect(await unseal(key, "mcp-request-state", token)).toBeUndefined();
    expect(await unseal(await keyOf(`${SECRET}x`), "mcp-session", token)).toBeUndefined();
  });

  it("refuses a payload or mac changed in transit, and junk", async () => {
    const key = await keyOf(SECRET);
    const token = await seal(key, "p", { tool: "a" });
    const [payload, mac] = token.split(".");
    const other = (await seal(key, "p", { tool: "b" })).split(".")[0];
    expect(await unseal(key, "p", `${other}.${mac}`)).toBeUndefined();
    expect(await unseal(key, "p", `${payload}.${mac!.slice(0, -2)}AA`)).toBeUndefined();
    for (const junk of ["", ".", "abc", "a.b.c", "%%.%%"]) expect(await unseal(key, "p", junk)).toBeUndefined();
  });

  it("derives its key from SIGNING_SECRET and seals nothing when a deployed Worker has none", async () => {
    expect(await keyOf(SECRET)).toBe(await keyOf(SECRET));
    await expect(sealingKeyOf({})).rejects.toBeInstanceOf(SigningSecretMissing);
    await expect(sealingKeyOf({ SIGNING_SECRET: "  " })).rejects.toBeInstanceOf(SigningSecretMissing);
  });
});
