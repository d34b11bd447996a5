import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/credentials.ts";
import { MemoryOAuthRecords } from "../../src/mcp/oauth/memory-oauth-records.ts";
import { completeAuthorization, localVault } from "../../src/mcp/oauth/oauth-completion.ts";
import { McpOAuthProvider, type McpCredentialVault } from "../../src/mcp/oauth/oauth-provider.ts";

/** A vault over records in memory, with the records and pending flows to read back. */
function memoryVault() {
  const store = new MemoryOAuthRecords();
  return { vault: localVault(store), records: store.records, flows: store.flows };
}

const server = { name: "linear", url: "https://mcp.example/mcp" };
const options = (vault: McpCredentialVault) => ({
  vault,
  redirectUrl: "https://w.example/v1/mcp/oauth/callback",
  stateRoute: "w",
  sessionId: "s_started",
});

describe("McpOAuthProvider", () => {
  it("keeps tokens another session stored after this one read its own", async () => {
    const { vault, records } = memoryVault();
    const mine = new McpOAuthProvider(server, options(vault));
    await mine.saveTokens({ access_token: "a1", token_type: "bearer", refresh_token: "r1" });
    // Another session refreshed meanwhile (the refresh token rotated).
    await new McpOAuthProvider(server, options(vault)).saveTokens({ access_token: "a2", token_type: "bearer", refresh_token: "r2" });
    await mine.invalidateCredentials("tokens"); // the SDK does this after r1 gets invalid_grant
    expect(JSON.parse(records.get("linear/tokens")!)).toMatchObject({ access_token: "a2" });
    expect(await mine.tokens()).toMatchObject({ refresh_token: "r2" });
    // Its own tokens, still stored, are dropped.
    await mine.invalidateCredentials("tokens");
    expect(records.has("linear/tokens")).toBe(false);
  });

  it("reads the tokens a callback stored when a new connection opens", async () => {
    const { vault } = memoryVault();
    const provider = new McpOAuthProvider(server, options(vault));
    expect(await provider.tokens()).toBeUndefined(); // the first connection, before the user authorized
    await new McpOAuthProvider(server, options(vault)).saveTokens({ access_token: "a1", token_type: "bearer" }); // the callback's
    provider.beginConnection();
    expect(await provider.tokens()).toMatchObject({ access_token: "a1" });
  });

  it("offers its metadata document as client id, and forgets one of another origin", async () => {
    const { vault } = memoryVault();
    const here = { ...options(vault), clientMetadataUrl: "https://w.example/v1/mcp/oauth/client-metadata.json" };
    const provider = new McpOAuthProvider(server, here);
    expect(provider.clientMetadataUrl).toBe(here.clientMetadataUrl);
    await provider.saveClientInformation({ client_id: "https://moved.example/v1/mcp/oauth/client-metadata.json" });
    expect(await provider.clientInformation()).toBeUndefined();
    await provider.saveClientInformation({ client_id: here.clientMetadataUrl });
    expect(await provider.clientInformation()).toEqual({ client_id: here.clientMetadataUrl });
  });

  it("issues unguessable states and stores the flow under the state's hash, never the state", async () => {
    const { vault, flows } = memoryVault();
    const provider = new McpOAuthProvider(server, options(vault));
    const state = provider.state();
    expect(state).toMatch(/^w\.[A-Za-z0-9_-]{43}$/);
    expect(provider.state()).not.toBe(state);
    const latest = provider.state();
    provider.saveCodeVerifier("verifier-1");
    await provider.redirectToAuthorization(new URL("https://auth.example/authorize?x=1"));
    expect(provider.authorizationUrl).toBe("https://auth.example/authorize?x=1");
    expect([...flows.keys()]).toEqual([await sha256Hex(latest)]);
    expect(flows.get(await sha256Hex(latest))).toMatchObject({ server: "linear", sessionId: "s_started", verifier: "verifier-1" });
    expect(JSON.stringify([...flows])).not.toContain(latest);
  });

  it("uses a pre-registered client, and registers again when the stored one has another redirect URL", async () => {
    const { vault } = memoryVault();
    const preRegistered = new McpOAuthProvider({ ...server, clientId: "cid", clientSecret: "sec" }, options(vault));
    expect(await preRegistered.clientInformation()).toEqual({ client_id: "cid", client_secret: "sec" });
    const dynamic = new McpOAuthProvider(server, options(vault));
    await dynamic.saveClientInformation({ client_id: "old", redirect_uris: ["https://moved.example/v1/mcp/oauth/callback"] });
    expect(await dynamic.clientInformation()).toBeUndefined();
    await dynamic.saveClientInformation({ client_id: "new", redirect_uris: ["https://w.example/v1/mcp/oauth/callback"] });
    expect(await dynamic.clientInformation()).toMatchObject({ client_id: "new" });
  });

  it("refuses metadata whose issuer is not the authorization server it was found at, before using it", async () => {
    const { vault, records } = memoryVault();
    const provider = new McpOAuthProvider(server, options(vault));
    const found = (issuer: string) => ({
      authorizationServerUrl: "https://auth.example/",
      authorizationServerMetadata: {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ["code"],
      },
    });
    await expect(provider.saveDiscoveryState(found("https://attacker.example"))).rejects.toThrow(/issuer "https:\/\/attacker.example"/);
    expect(records.has("linear/discovery")).toBe(false);
    // The SDK writes a bare origin with its slash: the same authorization server.
    await provider.saveDiscoveryState(found("https://auth.example"));
    expect(records.has("linear/discovery")).toBe(true);
  });

  it("records the issuer a flow expects back, and whether its metadata promised iss", async () => {
    const { vault, flows } = memoryVault();
    const provider = new McpOAuthProvider(server, options(vault));
    await provider.saveDiscoveryState({
      authorizationServerUrl: "https://auth.example/",
      authorizationServerMetadata: {
        issuer: "https://auth.example",
        authorization_endpoint: "https://auth.example/authorize",
        token_endpoint: "https://auth.example/token",
        response_types_supported: ["code"],
        authorization_response_iss_parameter_supported: true,
      } as never,
    });
    const state = provider.state();
    provider.saveCodeVerifier("v");
    await provider.redirectToAuthorization(new URL("https://auth.example/authorize"));
    expect(flows.get(await sha256Hex(state))).toMatchObject({ issuer: "https://auth.example", issRequired: true });
  });
});

describe("a step-up's scope (SEP-2350)", () => {
  it("asks for the scope granted before together with the challenged one", async () => {
    const { vault } = memoryVault();
    const provider = new McpOAuthProvider(server, options(vault));
    expect(await provider.stepUpScope("notes:write")).toBe("notes:write"); // nothing granted yet
    await provider.saveTokens({ access_token: "a", token_type: "bearer", scope: "notes:read profile" });
    expect(await provider.stepUpScope("notes:write")).toBe("notes:read profile notes:write");
    expect(await provider.stepUpScope("profile")).toBe("notes:read profile");
    // A scope token a header cannot carry is left out.
    expect(await provider.stepUpScope('x" evil="1 ok')).toBe("notes:read profile ok");
  });

  it("takes a token response without scope as granting the scope its flow asked for", async () => {
    const { vault } = memoryVault();
    const completing = new McpOAuthProvider(server, { ...options(vault), verifier: "v", requestedScope: "notes:read" });
    await completing.saveTokens({ access_token: "a", token_type: "bearer" });
    const later = new McpOAuthProvider(server, options(vault));
    expect(await later.stepUpScope("notes:write")).toBe("notes:read notes:write");
  });
});

/** Stores a flow for server "linear" begun on https://w.example, as the provider stores one. */
async function saveFlow(store: MemoryOAuthRecords, state: string, issuer?: { issuer?: string; issRequired?: boolean }) {
  store.saveFlow(await sha256Hex(state), {
    server: "linear",
    sessionId: "s_started",
    verifier: "v",
    redirectUrl: "https://w.example/v1/mcp/oauth/callback",
    expiresAt: Date.now() + 60_000,
    ...issuer,
  });
}

describe("completing an authorization (RFC 9207)", () => {
  /** A flow stored as the provider stores it; the server is unreachable, so a code that went on would be a 502. */
  async function flowExpecting(issuer: string | undefined, issRequired = false) {
    const store = new MemoryOAuthRecords();
    const state = "w.state-of-this-test";
    await saveFlow(store, state, { ...(issuer ? { issuer } : {}), ...(issRequired ? { issRequired } : {}) });
    const unreachable = { name: "linear", url: "http://127.0.0.1:9/mcp" };
    return (iss?: string) => completeAuthorization(store, state, "code", () => unreachable, iss);
  }

  it("refuses an iss of another issuer, even one that differs only by a trailing slash, before any token request", async () => {
    for (const iss of ["https://evil.example", "https://auth.example/", "HTTPS://auth.example"]) {
      const done = await (await flowExpecting("https://auth.example"))(iss);
      expect(done).toMatchObject({ ok: false, status: 400, message: expect.stringContaining('not "https://auth.example"') });
    }
  });

  it("refuses a response without iss when the metadata promised one, and an iss nothing can be compared with", async () => {
    expect(await (await flowExpecting("https://auth.example", true))()).toMatchObject({
      ok: false,
      status: 400,
      message: expect.stringContaining("has no iss"),
    });
    expect(await (await flowExpecting(undefined))("https://auth.example")).toMatchObject({ ok: false, status: 400 });
  });

  it("lets a matching iss, or none where none was promised, go on to the token request", async () => {
    // The token request is where it stops: the server is unreachable (502), past the iss check.
    expect(await (await flowExpecting("https://auth.example", true))("https://auth.example")).toMatchObject({ ok: false, status: 502 });
    expect(await (await flowExpecting("https://auth.example"))()).toMatchObject({ ok: false, status: 502 });
  });
});

describe("completing an authorization begun with the Worker's metadata document as client id", () => {
  it("exchanges the code under that client id (the origin is https, as deployed)", async () => {
    // The authorization server: metadata that takes metadata documents, and a token endpoint that records the client id.
    const tokenRequests: URLSearchParams[] = [];
    const auth = createServer((req, res) => {
      const base = `http://127.0.0.1:${(auth.address() as AddressInfo).port}`;
      const json = (body: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.url?.startsWith("/.well-known/oauth-protected-resource"))
        return json({ resource: `${base}/mcp`, authorization_servers: [base] });
      if (req.url === "/.well-known/oauth-authorization-server")
        return json({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
          client_id_metadata_document_supported: true,
        });
      if (req.url === "/token" && req.method === "POST") {
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString("utf8")));
        req.on("end", () => {
          tokenRequests.push(new URLSearchParams(body));
          json({ access_token: "a1", token_type: "bearer" });
        });
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((done) => auth.listen(0, "127.0.0.1", done));
    try {
      const mcpServer = { name: "linear", url: `http://127.0.0.1:${(auth.address() as AddressInfo).port}/mcp` };
      const store = new MemoryOAuthRecords();
      const documentUrl = "https://w.example/v1/mcp/oauth/client-metadata.json";
      // What starting the flow stored: the SDK saves the metadata document's URL as the client.
      const starting = new McpOAuthProvider(mcpServer, { ...options(localVault(store)), clientMetadataUrl: documentUrl });
      await starting.saveClientInformation({ client_id: documentUrl });
      const state = "w.state-of-the-cimd-test";
      await saveFlow(store, state);
      const done = await completeAuthorization(store, state, "the-code", () => mcpServer);
      expect(done).toMatchObject({ ok: true, server: "linear" });
      expect(tokenRequests.map((r) => [r.get("client_id"), r.get("code")])).toEqual([[documentUrl, "the-code"]]);
    } finally {
      await new Promise((done) => auth.close(done));
    }
  });
});
