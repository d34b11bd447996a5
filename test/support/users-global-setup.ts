/**
 * vitest globalSetup for the users project: an identity provider's JWKS server on 127.0.0.1
 * (test/support/jwks-server.ts) serving two keys generated here, RS256 and ES256. The Worker gets its URL
 * as AUTH_JWKS_URL (vitest.config.ts); tests get the private keys (`inject("userKeys")`) to sign tokens.
 */
import { exportJWK, generateKeyPair } from "jose";
import type { TestProject } from "vitest/node";
import { startJwksServer } from "./jwks-server.ts";

export type PrivateTestKey = { kid: string; alg: "RS256" | "ES256"; privateJwk: Record<string, unknown> };

declare module "vitest" {
  export interface ProvidedContext {
    jwksUrl: string;
    userKeys: PrivateTestKey[];
  }
}

export default async function setup(project: TestProject) {
  const server = await startJwksServer();
  const keys: PrivateTestKey[] = [];
  const publicJwks: object[] = [];
  for (const [kid, alg] of [
    ["users-rsa", "RS256"],
    ["users-ec", "ES256"],
  ] as const) {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    keys.push({ kid, alg, privateJwk: { ...(await exportJWK(privateKey)), kid, alg } });
    publicJwks.push({ ...(await exportJWK(publicKey)), kid, alg, use: "sig" });
  }
  server.setKeys(publicJwks);
  project.provide("jwksUrl", `${server.url}/jwks.json`);
  project.provide("userKeys", keys);
  return () => server.close();
}
