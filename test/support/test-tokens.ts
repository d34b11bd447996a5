/**
 * Real keys and tokens for sign-in tests (RS256 and ES256, generated per test run with jose, which runs
 * in Node and in workerd alike): a signer per key, and the malformed tokens an attacker would send.
 */
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWTPayload } from "jose";

export type TestKey = {
  kid: string;
  alg: "RS256" | "ES256";
  publicJwk: object;
  sign: (claims: JWTPayload, header?: object) => Promise<string>;
  spki: string;
};

export async function testKey(kid: string, alg: "RS256" | "ES256"): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return {
    kid,
    alg,
    publicJwk,
    spki: await exportSPKI(publicKey),
    sign: (claims, header = {}) => new SignJWT(claims).setProtectedHeader({ alg, kid, typ: "JWT", ...header }).sign(privateKey),
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Claims a valid token carries: the issuer and audience given, an hour to live. */
export const claimsFor = (sub: string, iss: string, aud: string, extra: JWTPayload = {}): JWTPayload => ({
  sub,
  iss,
  aud,
  iat: nowSeconds(),
  exp: nowSeconds() + 3600,
  ...extra,
});

const b64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** `alg: none`: a header and claims, no signature. */
export const unsignedToken = (claims: JWTPayload, kid: string): string =>
  `${b64url(JSON.stringify({ alg: "none", typ: "JWT", kid }))}.${b64url(JSON.stringify(claims))}.`;

/** The classic confusion: HS256 with the RSA key's public PEM as the HMAC secret. */
export const hmacWithPublicKey = (key: TestKey, claims: JWTPayload): Promise<string> =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: key.kid, typ: "JWT" }).sign(new TextEncoder().encode(key.spki));

export { nowSeconds };
